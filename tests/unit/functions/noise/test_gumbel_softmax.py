"""gumbel_softmax: the relaxed sample against its definition, temperature, gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.noise.gumbel_softmax import gumbel_softmax


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _softmax(z, axis):
    e = numpy.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("tau", [0.1, 2.0])
def test_sample_matches_definition(dtype, axis, tau):
    log_pi = numpy.log(numpy.random.default_rng(0).dirichlet(numpy.ones(4), 3)).astype(dtype)
    numpy.random.seed(5)
    y = gumbel_softmax(log_pi, tau=tau, axis=axis)
    numpy.random.seed(5)
    noise = numpy.random.gumbel(size=log_pi.shape).astype(dtype)
    assert y.shape == log_pi.shape and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _softmax((log_pi + noise) / tau, axis), rtol=1e-4)


def test_rows_are_distributions_on_the_device(xp):
    log_pi = xp.asarray(numpy.log(numpy.full((5, 3), 1 / 3)))
    y = _host(gumbel_softmax(log_pi, tau=0.5).array)
    assert (y >= 0).all()
    numpy.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-12)


def test_low_temperature_follows_the_probabilities():
    numpy.random.seed(0)
    log_pi = numpy.log(numpy.tile([0.7, 0.2, 0.1], (4000, 1)))
    y = gumbel_softmax(log_pi, tau=0.01).array
    picked = numpy.bincount(y.argmax(axis=1), minlength=3) / 4000
    assert numpy.median(y.max(axis=1)) > 0.99  # nearly one-hot
    numpy.testing.assert_allclose(picked, [0.7, 0.2, 0.1], atol=0.03)


def test_zero_dimensional_input_gives_one():
    y = gumbel_softmax(numpy.float32(0.3) * numpy.ones((), numpy.float32))
    assert isinstance(y, chainer_compat.Variable) and y.shape == () and y.array == 1


def test_temperature_may_be_a_variable():
    numpy.random.seed(1)
    log_pi = numpy.log(numpy.full((2, 3), 1 / 3))
    tau = chainer_compat.Variable(numpy.array(0.5))
    y = gumbel_softmax(log_pi, tau=tau)
    y.grad = numpy.random.default_rng(0).standard_normal((2, 3))
    y.backward()
    assert tau.grad is not None and tau.grad.shape == ()


def test_backward_matches_numerical():
    rng = numpy.random.default_rng(2)
    log_pi = numpy.log(rng.dirichlet(numpy.ones(4), 3))
    gy = rng.standard_normal((3, 4))

    def f(log_pi):
        numpy.random.seed(7)  # the same noise on every evaluation
        return gumbel_softmax(log_pi, tau=0.7)

    gradient_check.check_backward(f, log_pi, gy)
