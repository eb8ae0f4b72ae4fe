"""prelu: values for several W shapes, gradients of x and W, type checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.activation.prelu import PReLUFunction, prelu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [((3, 4), (4,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)), ((3, 2), ())]


def _reference(x, w):
    slopes = w.reshape((1,) + w.shape + (1,) * (x.ndim - w.ndim - 1))
    return numpy.where(x >= 0, x, slopes * x)


@pytest.mark.parametrize("x_shape, w_shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, w_shape, dtype, uniform, check_function):
    x = uniform(x_shape, dtype, gap=0.1)
    w = uniform(w_shape, dtype, low=0.1, high=0.5)
    check_function(prelu, (x, w), _reference)


def test_w_of_wrong_shape_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"PReLUFunction \(Forward\)[\s\S]*W"):
        prelu(numpy.ones((2, 3), numpy.float32), numpy.ones(4, numpy.float32))


def test_w_of_other_dtype_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"W\.dtype == x\.dtype"):
        PReLUFunction().apply((numpy.ones((2, 3), numpy.float32), numpy.ones(3)))
