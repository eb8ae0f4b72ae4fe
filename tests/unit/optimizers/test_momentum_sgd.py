"""MomentumSGD: the update formula against a NumPy reference, its state and fp32 update."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import optimizers
from chainer_compat.optimizers.momentum_sgd import MomentumSGDRule

STEPS = 5


class Tiny(chainer.Link):
    def __init__(self, dtype, xp=numpy):
        super().__init__()
        rng = numpy.random.RandomState(0)
        with self.init_scope():
            self.w = chainer.Parameter(xp.asarray(rng.uniform(-1, 1, (4,)).astype(dtype)))


def grads(dtype, steps=STEPS):
    rng = numpy.random.RandomState(2)
    return [rng.uniform(-1, 1, (4,)).astype(dtype) for _ in range(steps)]


def host(array):
    return array if isinstance(array, numpy.ndarray) else array.get()


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_momentum_sgd_matches_numpy_reference_over_steps(dtype, xp):
    link = Tiny(dtype, xp)
    expected = host(link.w.array).astype(numpy.float64)
    velocity = numpy.zeros(4)
    opt = optimizers.MomentumSGD(lr=0.1, momentum=0.7).setup(link)
    for grad in grads(dtype):
        link.w.grad = xp.asarray(grad)
        opt.update()
        velocity = 0.7 * velocity - 0.1 * grad
        expected = expected + velocity
    tolerance = 1e-6 if dtype == numpy.float32 else 1e-13
    numpy.testing.assert_allclose(host(link.w.array), expected, rtol=tolerance, atol=tolerance)
    numpy.testing.assert_allclose(host(link.w.update_rule.state["v"]), velocity, rtol=tolerance,
                                  atol=tolerance)
    assert link.w.array.dtype == dtype


def test_momentum_sgd_float16_with_fp32_update_matches_a_float32_reference():
    link = Tiny(numpy.float16)
    master = link.w.array.astype(numpy.float32)
    velocity = numpy.zeros(4, numpy.float32)
    opt = optimizers.MomentumSGD(lr=0.05, momentum=0.9)
    opt.use_fp32_update()
    opt.setup(link)
    for grad in grads(numpy.float16):
        link.w.grad = grad
        opt.update()
        velocity *= numpy.float32(0.9)
        velocity -= numpy.float32(0.05) * grad.astype(numpy.float32)
        master += velocity
        numpy.testing.assert_allclose(link.w.array, master.astype(numpy.float16), rtol=1e-3)
    assert link.w.update_rule.state["v"].dtype == numpy.float32
    numpy.testing.assert_allclose(link.w.update_rule.state["v"], velocity, rtol=1e-6)


def test_state_is_created_at_first_update_like_the_parameter():
    link = Tiny(numpy.float64)
    opt = optimizers.MomentumSGD().setup(link)
    assert link.w.update_rule.state is None
    link.w.grad = numpy.ones(4)
    opt.update()
    state = link.w.update_rule.state
    assert set(state) == {"v"}
    assert state["v"].shape == (4,) and state["v"].dtype == numpy.float64


def test_defaults_and_proxies():
    opt = optimizers.MomentumSGD()
    assert (opt.lr, opt.momentum) == (0.01, 0.9)
    opt.momentum = 0.5
    assert opt.hyperparam.momentum == 0.5
    rule = MomentumSGDRule(lr=0.3)
    assert (rule.hyperparam.lr, rule.hyperparam.momentum) == (0.3, 0.9)
