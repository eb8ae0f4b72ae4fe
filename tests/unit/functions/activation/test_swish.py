"""swish: values for several beta shapes, gradients of first and second order, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.activation.swish import swish
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# (x shape, beta shape)
SHAPES = [((3, 4), (4,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)), ((3, 2), ())]


def _reference(x, beta):
    b = beta.reshape((1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1))
    return x / (1 + numpy.exp(-b * x))


@pytest.mark.parametrize("x_shape, beta_shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, beta_shape, dtype, uniform, check_function):
    x = uniform(x_shape, dtype, low=-2.0, high=2.0)
    beta = uniform(beta_shape, dtype, low=0.5, high=2.0)
    check_function(swish, (x, beta), _reference)


def test_zero_beta_halves_the_input():
    x = numpy.array([[-2.0, 4.0]], numpy.float32)
    numpy.testing.assert_allclose(swish(x, numpy.zeros(2, numpy.float32)).array, x / 2)


def test_beta_of_wrong_shape_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Swish \(Forward\)[\s\S]*beta\.shape"):
        swish(numpy.ones((2, 3), numpy.float32), numpy.ones(4, numpy.float32))


def test_beta_of_other_dtype_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"beta\.dtype == x\.dtype"):
        swish(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float64))
