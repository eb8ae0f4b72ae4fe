"""crelu: values along several axes, gradients, axis validation."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.activation.crelu import crelu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(axis, dtype, uniform, check_function):
    x = uniform((2, 3, 2), dtype, gap=0.1)
    check_function(lambda x: crelu(x, axis), (x,),
                   lambda x: numpy.concatenate((numpy.maximum(x, 0), numpy.maximum(-x, 0)),
                                               axis=axis))


def test_default_axis_is_one():
    assert crelu(numpy.ones((2, 3), numpy.float32)).shape == (2, 6)


def test_non_integer_axis_is_rejected():
    with pytest.raises(TypeError, match="axis must be an integer"):
        crelu(numpy.ones((2, 3), numpy.float32), axis=1.0)


@pytest.mark.parametrize("axis", [2, -3])
def test_axis_out_of_range_is_rejected(axis):
    with pytest.raises(type_check.InvalidType, match=r"CReLU \(Forward\)[\s\S]*x\.ndim"):
        crelu(numpy.ones((2, 3), numpy.float32), axis=axis)
