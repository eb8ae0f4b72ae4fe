"""scale: Caffe-style broadcast multiplication (its y alignment and errors: test_bias.py)."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.math.scale import scale

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = [((2, 3, 4), (3,), 1), ((2, 3, 4, 2), (3, 4), 1), ((2, 3, 4), (2, 3), 0),
         ((2, 3, 4), (4,), 2)]


def _aligned(y, x_shape, axis):
    return y.reshape((1,) * axis + y.shape + (1,) * (len(x_shape) - axis - y.ndim))


@pytest.mark.parametrize("x_shape, y_shape, axis", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, y_shape, axis, dtype, uniform,
                                          check_function):
    check_function(lambda x, y: scale(x, y, axis),
                   (uniform(x_shape, dtype), uniform(y_shape, dtype)),
                   lambda x, y: x * _aligned(y, x_shape, axis))
