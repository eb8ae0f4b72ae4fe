"""GradientClipping: rescales all gradients together so their total L2 norm is <= threshold."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizer_hooks, optimizers


class Tiny(chainer.Link):
    def __init__(self, dtype=numpy.float64):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros((2, 2), dtype))
            self.b = chainer.Parameter(numpy.zeros(3, dtype))
            self.u = chainer.Parameter()  # uninitialized: has no gradient
        self.u.cleargrad()  # as in Chainer, reading an unset grad would raise


def set_grads(link, dtype, scale):
    rng = numpy.random.RandomState(0)
    link.w.grad = (scale * rng.uniform(-1, 1, (2, 2))).astype(dtype)
    link.b.grad = (scale * rng.uniform(-1, 1, 3)).astype(dtype)
    return [link.w.grad.astype(numpy.float64), link.b.grad.astype(numpy.float64)]


def test_attributes_it_is_called_once_with_the_optimizer():
    hook = optimizer_hooks.GradientClipping(2.0)
    assert (hook.name, hook.timing, hook.threshold) == ("GradientClipping", "pre", 2.0)
    assert not getattr(hook, "call_for_each_param", False)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_gradients_above_threshold_are_scaled_to_it(dtype):
    link = Tiny(dtype)
    opt = optimizers.SGD(lr=0.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientClipping(0.5))
    originals = set_grads(link, dtype, 10.0)
    norm = numpy.sqrt(sum(numpy.sum(g * g) for g in originals))
    assert norm > 0.5
    opt.update()
    for param, original in zip((link.w, link.b), originals, strict=True):
        numpy.testing.assert_allclose(param.grad, original * 0.5 / norm, rtol=1e-5)
    clipped = numpy.sqrt(sum(numpy.sum(p.grad.astype(numpy.float64) ** 2)
                             for p in (link.w, link.b)))
    assert clipped == pytest.approx(0.5, rel=1e-5)


def test_gradients_within_threshold_are_unchanged():
    link = Tiny()
    opt = optimizers.SGD(lr=0.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientClipping(100.0))
    originals = set_grads(link, numpy.float64, 1.0)
    opt.update()
    numpy.testing.assert_array_equal(link.w.grad, originals[0])
    numpy.testing.assert_array_equal(link.b.grad, originals[1])


def test_all_zero_gradients_are_left_alone():
    link = Tiny()
    opt = optimizers.SGD(lr=0.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientClipping(1.0))
    link.w.grad = numpy.zeros((2, 2))
    link.b.grad = numpy.zeros(3)
    opt.update()
    assert not numpy.isnan(link.w.grad).any()
