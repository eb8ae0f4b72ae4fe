"""bias: Caffe-style broadcast addition: values, gradients, shape errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math.bias import bias

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = [((2, 3, 4), (3,), 1), ((2, 3, 4), (3, 4), 1), ((2, 3, 4), (2,), 0),
         ((2, 3, 4), (4,), 2), ((2, 3), (2, 3), 0)]


def _aligned(y, x_shape, axis):
    return y.reshape((1,) * axis + y.shape + (1,) * (len(x_shape) - axis - y.ndim))


@pytest.mark.parametrize("x_shape, y_shape, axis", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, y_shape, axis, dtype, uniform,
                                          check_function):
    check_function(lambda x, y: bias(x, y, axis),
                   (uniform(x_shape, dtype), uniform(y_shape, dtype)),
                   lambda x, y: x + _aligned(y, x_shape, axis))


def test_default_axis_is_one():
    x = numpy.zeros((2, 3), numpy.float32)
    y = numpy.arange(3, dtype=numpy.float32)
    numpy.testing.assert_array_equal(bias(x, y).array, numpy.tile(y, (2, 1)))


def test_shape_mismatch_is_rejected():
    with pytest.raises(ValueError, match=r"bias: y's shape must equal x's shape from axis 1"):
        bias(numpy.zeros((2, 3), numpy.float32), numpy.zeros(4, numpy.float32))
