"""diagonal: values for offsets and axis pairs, gradients written back, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.diagonal import diagonal
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, offset, axis1, axis2", [
    ((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -2, 0, 1), ((2, 3, 4), 0, 1, 2),
    ((2, 3, 4), 1, -1, 0), ((3, 2), 5, 0, 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, offset, axis1, axis2, dtype, uniform,
                                          check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: diagonal(x, offset, axis1, axis2), (x,),
                   lambda x: x.diagonal(offset, axis1, axis2))


def test_output_is_writable():
    y = diagonal(numpy.ones((2, 2)))
    y.array[0] = 5.0
    assert y.array[0] == 5.0


def test_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Diagonal \(Forward\)[\s\S]*ndim"):
        diagonal(numpy.ones((2, 2)), 0, 0, 2)
