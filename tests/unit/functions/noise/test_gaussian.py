"""gaussian: the reparameterized sample, eps reuse, statistics, gradients, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.noise.gaussian import Gaussian, gaussian
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_sample_is_mean_plus_scaled_eps(xp, dtype):
    rng = numpy.random.default_rng(0)
    mean, ln_var, eps = (rng.standard_normal((3, 4)).astype(dtype) for _ in range(3))
    y = gaussian(xp.asarray(mean), xp.asarray(ln_var), eps=xp.asarray(eps))
    expected = mean.astype(numpy.float64) + numpy.exp(ln_var / 2.0) * eps
    assert y.dtype == dtype
    tolerance = {"atol": 2e-2, "rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array), expected, **tolerance)


def test_drawn_eps_is_returned_and_reproduces_the_sample(xp):
    mean = xp.zeros((2, 3), numpy.float32)
    ln_var = xp.zeros((2, 3), numpy.float32)
    y, eps = gaussian(mean, ln_var, return_eps=True)
    assert eps.shape == (2, 3) and eps.dtype == numpy.float32
    again = gaussian(mean, ln_var, eps=eps)
    numpy.testing.assert_array_equal(_host(y.array), _host(again.array))


def test_samples_have_the_requested_moments():
    numpy.random.seed(0)
    mean = numpy.full(20000, 3.0)
    ln_var = numpy.full(20000, numpy.log(4.0))
    sample = gaussian(mean, ln_var).array
    # Standard errors: 2 / sqrt(20000) for the mean, about 0.04 for the variance.
    assert abs(sample.mean() - 3.0) < 0.06
    assert abs(sample.var() - 4.0) < 0.2


def test_a_node_keeps_its_noise_between_applications():
    func = Gaussian()
    mean = numpy.zeros(5)
    first = func.apply((mean, numpy.zeros(5)))[0].array
    second = func.apply((mean, numpy.zeros(5)))[0].array
    numpy.testing.assert_array_equal(first, second)


def test_backward_and_double_backward_match_numerical(xp):
    rng = numpy.random.default_rng(1)
    mean, ln_var, eps, gy = (xp.asarray(rng.standard_normal((3, 2))) for _ in range(4))
    grad_grads = tuple(xp.asarray(rng.standard_normal((3, 2))) for _ in range(2))

    def f(mean, ln_var):
        return gaussian(mean, ln_var, eps=eps)

    gradient_check.check_backward(f, (mean, ln_var), gy)
    gradient_check.check_double_backward(f, (mean, ln_var), gy, grad_grads)


def test_shape_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType,
                       match=r"Gaussian[\s\S]*mean\.shape == ln_var\.shape"):
        gaussian(numpy.zeros((2, 3), "f"), numpy.zeros(3, "f"))


def test_dtype_mismatch_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"mean\.dtype == ln_var\.dtype"):
        gaussian(numpy.zeros(3, "f"), numpy.zeros(3, "d"))
