"""WeightDecay: adds ``rate * param`` to the gradient, per parameter, before the update."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers


class Tiny(chainer.Link):
    def __init__(self, dtype=numpy.float64):
        super().__init__()
        rng = numpy.random.RandomState(0)
        with self.init_scope():
            self.w = chainer.Parameter(rng.uniform(-1, 1, (2, 3)).astype(dtype))
            self.b = chainer.Parameter(rng.uniform(-1, 1, (3,)).astype(dtype))


def test_attributes():
    hook = optimizer_hooks.WeightDecay(0.25)
    assert (hook.name, hook.timing, hook.call_for_each_param, hook.rate) == (
        "WeightDecay", "pre", True, 0.25)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_decay_is_added_before_sgd_step(dtype):
    link = Tiny(dtype)
    opt = optimizers.SGD(lr=0.5).setup(link)
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    rng = numpy.random.RandomState(1)
    expected = {name: param.array.astype(numpy.float64) for name, param in link.namedparams()}
    for _ in range(3):
        for name, param in link.namedparams():
            grad = rng.uniform(-1, 1, param.shape).astype(dtype)
            param.grad = grad
            expected[name] = expected[name] - 0.5 * (grad + 0.1 * expected[name])
        opt.update()
    for name, param in link.namedparams():
        numpy.testing.assert_allclose(param.array, expected[name], rtol=1e-5)


def test_works_as_an_update_rule_hook_on_one_parameter():
    link = Tiny()
    opt = optimizers.SGD(lr=1.0).setup(link)
    link.w.update_rule.add_hook(optimizer_hooks.WeightDecay(0.5))
    w0, b0 = link.w.array.copy(), link.b.array.copy()
    link.w.grad = numpy.zeros((2, 3))
    link.b.grad = numpy.zeros(3)
    opt.update()
    numpy.testing.assert_allclose(link.w.array, w0 - 0.5 * w0)
    numpy.testing.assert_array_equal(link.b.array, b0)


def test_rate_is_multiplied_by_the_loss_scale_of_a_scaled_gradient():
    link = Tiny()
    param = link.w
    param.grad = numpy.zeros((2, 3))
    param._loss_scale = 8.0
    optimizer_hooks.WeightDecay(0.1)(None, param)
    numpy.testing.assert_allclose(param.grad, 0.8 * param.array)


def test_skips_a_parameter_without_grad_or_data():
    hook = optimizer_hooks.WeightDecay(0.1)
    param = chainer.Parameter(numpy.ones(3))
    param.grad = None
    hook(None, param)  # must not fail
    assert param.grad is None
    uninitialized = chainer.Parameter()
    uninitialized.cleargrad()  # as in Chainer, reading an unset grad would raise
    hook(None, uninitialized)
    assert uninitialized.array is None
