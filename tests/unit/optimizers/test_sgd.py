"""SGD: the update formula against a NumPy reference, its hyperparameters and fp32 update."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizers
from chainer_compat.optimizers.sgd import SGDRule

STEPS = 4


class Tiny(chainer.Link):
    def __init__(self, dtype, xp=numpy):
        super().__init__()
        rng = numpy.random.RandomState(0)
        with self.init_scope():
            self.w = chainer.Parameter(xp.asarray(rng.uniform(-1, 1, (3, 2)).astype(dtype)))


def grads(dtype, steps=STEPS):
    rng = numpy.random.RandomState(1)
    return [rng.uniform(-1, 1, (3, 2)).astype(dtype) for _ in range(steps)]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_sgd_matches_numpy_reference_over_steps(dtype, xp):
    link = Tiny(dtype, xp)
    expected = numpy.asarray(link.w.array.get() if xp is not numpy else link.w.array).copy()
    opt = optimizers.SGD(lr=0.3).setup(link)
    for grad in grads(dtype):
        link.w.grad = xp.asarray(grad)
        opt.update()
        expected -= dtype(0.3) * grad
    actual = link.w.array if xp is numpy else link.w.array.get()
    assert actual.dtype == dtype
    numpy.testing.assert_allclose(actual, expected, rtol=1e-6 if dtype == numpy.float32 else 1e-13)
    assert opt.t == STEPS and link.w.update_rule.t == STEPS


def test_sgd_float16_with_fp32_update_keeps_a_float32_master_copy():
    link = Tiny(numpy.float16)
    master = link.w.array.astype(numpy.float32)
    opt = optimizers.SGD(lr=1e-4)
    opt.use_fp32_update()
    opt.setup(link)
    for grad in grads(numpy.float16, steps=6):
        link.w.grad = grad
        opt.update()
        master -= numpy.float32(1e-4) * grad.astype(numpy.float32)
        numpy.testing.assert_array_equal(link.w.array, master.astype(numpy.float16))
    assert link.w.array.dtype == numpy.float16
    assert link.w.update_rule._fp32_param.array.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.w.update_rule._fp32_param.array, master)


def test_sgd_float16_without_fp32_update_loses_tiny_steps():
    # The reason fp32 update exists: a step below float16's resolution changes nothing.
    link = Tiny(numpy.float16)
    before = link.w.array.copy()
    opt = optimizers.SGD(lr=1e-5).setup(link)
    link.w.grad = numpy.full((3, 2), 1e-2, numpy.float16)
    opt.update()
    numpy.testing.assert_array_equal(link.w.array, before)


def test_lr_is_a_proxy_of_the_hyperparameter_and_rules_follow_it():
    link = Tiny(numpy.float64)
    opt = optimizers.SGD().setup(link)
    assert opt.lr == 0.01 and opt.hyperparam.lr == 0.01
    opt.lr = 0.5
    assert opt.hyperparam.lr == 0.5
    assert link.w.update_rule.hyperparam.lr == 0.5
    before = link.w.array.copy()
    link.w.grad = numpy.ones((3, 2))
    opt.update()
    numpy.testing.assert_allclose(link.w.array, before - 0.5)


def test_rule_override_wins_over_the_optimizer_hyperparameter():
    link = Tiny(numpy.float64)
    opt = optimizers.SGD(lr=0.5).setup(link)
    link.w.update_rule.hyperparam.lr = 0.0
    before = link.w.array.copy()
    link.w.grad = numpy.ones((3, 2))
    opt.update()
    numpy.testing.assert_array_equal(link.w.array, before)


def test_sgd_rule_alone_uses_module_defaults_or_its_own_lr():
    assert SGDRule().hyperparam.lr == 0.01
    assert SGDRule(lr=0.2).hyperparam.lr == 0.2
    assert SGDRule.is_elementwise
