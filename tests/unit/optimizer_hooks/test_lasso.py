"""Lasso: adds ``rate * sign(param)`` to the gradient, per parameter, before the update."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers


class Tiny(chainer.Link):
    def __init__(self, dtype=numpy.float64):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.array([-2.0, 0.0, 3.0, -0.5], dtype))


def test_attributes():
    hook = optimizer_hooks.Lasso(0.3)
    assert (hook.name, hook.timing, hook.call_for_each_param, hook.rate) == (
        "Lasso", "pre", True, 0.3)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_sign_of_the_parameter_is_added_before_the_step(dtype):
    link = Tiny(dtype)
    opt = optimizers.SGD(lr=0.5).setup(link)
    opt.add_hook(optimizer_hooks.Lasso(0.2))
    expected = link.w.array.astype(numpy.float64)
    rng = numpy.random.RandomState(0)
    for _ in range(3):
        grad = rng.uniform(-1, 1, 4).astype(dtype)
        link.w.grad = grad
        expected = expected - 0.5 * (grad + 0.2 * numpy.sign(expected))
        opt.update()
    numpy.testing.assert_allclose(link.w.array, expected, rtol=1e-5)


def test_skips_a_parameter_without_grad():
    param = chainer.Parameter(numpy.ones(3))
    param.grad = None
    optimizer_hooks.Lasso(0.1)(None, param)
    assert param.grad is None
