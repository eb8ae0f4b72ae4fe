"""GradientHardClipping: clips each gradient element into the bounds, in place."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers


class Tiny(chainer.Link):
    def __init__(self, dtype=numpy.float64):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros(5, dtype))


def test_attributes():
    hook = optimizer_hooks.GradientHardClipping(-1, 2)
    assert (hook.name, hook.timing, hook.call_for_each_param) == (
        "GradientHardClipping", "pre", True)
    assert (hook.lower_bound, hook.upper_bound) == (-1, 2)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_gradient_is_clipped_in_place_before_the_step(dtype):
    link = Tiny(dtype)
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientHardClipping(-0.5, 0.25))
    grad = numpy.array([-3.0, -0.4, 0.0, 0.2, 7.0], dtype)
    link.w.grad = grad
    opt.update()
    expected = numpy.clip(numpy.array([-3.0, -0.4, 0.0, 0.2, 7.0]), -0.5, 0.25)
    numpy.testing.assert_allclose(link.w.grad, expected.astype(dtype))
    assert link.w.grad is grad  # clipped in place
    numpy.testing.assert_allclose(link.w.array, (-expected).astype(dtype))


def test_skips_a_parameter_without_grad():
    param = chainer.Parameter(numpy.ones(3))
    param.grad = None
    optimizer_hooks.GradientHardClipping(-1, 1)(None, param)
    assert param.grad is None
