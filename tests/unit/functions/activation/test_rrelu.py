"""rrelu: gradients of every order with fixed slopes, seeded slopes, keyword errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.activation.rrelu import rrelu
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def test_gradients_with_given_slopes(xp):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    x[numpy.abs(x) < 0.05] = 0.5  # away from the kink, where the numerical gradient is exact
    r = xp.asarray(rng.uniform(0.1, 0.3, (3, 4)))
    gy, ggx = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x, gy, ggx = xp.asarray(x), xp.asarray(gy), xp.asarray(ggx)
    gradient_check.check_backward(lambda a: rrelu(a, r=r), x, gy)
    gradient_check.check_double_backward(lambda a: rrelu(a, r=r), x, gy, ggx)


def test_slopes_follow_the_seeded_generator_and_stay_in_bounds():
    x = -numpy.ones((50,), numpy.float32)
    numpy.random.seed(1)
    y, r = rrelu(x, 0.2, 0.25, return_r=True)
    assert ((r >= 0.2) & (r <= 0.25)).all() and r.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, -r)
    numpy.random.seed(1)
    numpy.testing.assert_array_equal(rrelu(x, 0.2, 0.25).array, y.array)


def test_test_mode_returns_r_of_the_mean_slope():
    with chainer_compat.using_config("train", False):
        _, r = rrelu(numpy.zeros(3, numpy.float32), 0.1, 0.3, return_r=True)
    numpy.testing.assert_allclose(r, numpy.full(3, 0.2, numpy.float32))


def test_keyword_errors():
    x = numpy.zeros(3, numpy.float32)
    with pytest.raises(ValueError, match="train argument"):
        rrelu(x, train=True)
    with pytest.raises(TypeError):
        rrelu(x, slope=0.1)
    with pytest.raises(type_check.InvalidType):
        rrelu(x, r=numpy.zeros(4, numpy.float32))
    assert _host(rrelu(x).array).shape == (3,)


def test_a_hook_sees_chainers_gradient_node():
    x = numpy.array([[-2.0, -0.5, 0.0, 1.5]], numpy.float32)
    r = numpy.array([[0.25, 0.125, 0.2, 0.3]], numpy.float32)
    gy = numpy.array([[1.0, 2.0, 3.0, 4.0]], numpy.float32)
    plain, hooked, labels = gradients_under_a_hook(lambda x: rrelu(x, r=r), (x,), gy)
    assert labels == ["_RReLUGrad"]  # Chainer 7.8.1's
    numpy.testing.assert_array_equal(plain[0], [[0.25, 0.25, 3.0, 4.0]])
    numpy.testing.assert_array_equal(hooked[0], plain[0])
