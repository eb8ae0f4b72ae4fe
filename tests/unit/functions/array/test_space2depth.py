"""space2depth: values against a NumPy reference, gradients (through depth2space), checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.space2depth import space2depth
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def space2depth_reference(x, r):
    """Channel (i * r + j) * c + k of the output is input channel k at block offset (i, j)."""
    n, c, height, width = x.shape
    y = numpy.empty((n, c * r * r, height // r, width // r), x.dtype)
    for i in range(r):
        for j in range(r):
            y[:, (i * r + j) * c:(i * r + j + 1) * c] = x[:, :, i::r, j::r]
    return y


@pytest.mark.parametrize("shape, r", [((2, 3, 4, 6), 2), ((1, 2, 3, 6), 3), ((2, 3, 2, 4), 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients(shape, r, dtype, uniform, check_function):
    check_function(lambda x: space2depth(x, r), (uniform(shape, dtype),),
                   lambda x: space2depth_reference(x, r))


@pytest.mark.parametrize("x", [numpy.zeros((2, 4, 4), numpy.float32),
                               numpy.zeros((1, 1, 2, 2), numpy.int32)])
def test_type_check(x):
    with pytest.raises(type_check.InvalidType, match=r"Space2Depth \(Forward\)"):
        space2depth(x, 2)


def test_spatial_size_not_a_multiple_of_r_raises_value_error():
    with pytest.raises(ValueError, match="multiples of r=2"):
        space2depth(numpy.zeros((1, 1, 3, 2), numpy.float32), 2)
