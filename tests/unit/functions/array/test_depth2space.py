"""depth2space: values against a NumPy reference, gradients (through space2depth), checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.backends.cuda import to_cpu
from chainer_compat.functions.array.depth2space import Depth2Space, depth2space
from chainer_compat.functions.array.space2depth import space2depth
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def depth2space_reference(x, r):
    """Output pixel (h * r + i, w * r + j) of channel k is input channel (i * r + j) * c + k."""
    n, channels, height, width = x.shape
    c = channels // (r * r)
    y = numpy.empty((n, c, height * r, width * r), x.dtype)
    for i in range(r):
        for j in range(r):
            y[:, :, i::r, j::r] = x[:, (i * r + j) * c:(i * r + j + 1) * c]
    return y


@pytest.mark.parametrize("shape, r", [((2, 8, 3, 5), 2), ((1, 9, 2, 2), 3), ((2, 3, 2, 4), 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients(shape, r, dtype, uniform, check_function):
    check_function(lambda x: depth2space(x, r), (uniform(shape, dtype),),
                   lambda x: depth2space_reference(x, r))


def test_space2depth_undoes_depth2space(uniform):
    x = uniform((2, 12, 3, 2), numpy.float32)
    numpy.testing.assert_array_equal(to_cpu(space2depth(depth2space(x, 2), 2).array), to_cpu(x))


@pytest.mark.parametrize("x", [numpy.zeros((2, 4, 3), numpy.float32),
                               numpy.zeros((1, 4, 2, 2), numpy.int32)])
def test_type_check(x):
    with pytest.raises(type_check.InvalidType, match=r"Depth2Space \(Forward\)"):
        depth2space(x, 2)


def test_channels_not_a_multiple_of_r_squared_raise_value_error():
    with pytest.raises(ValueError, match="multiple of r \\* r=4"):
        Depth2Space(2).apply((numpy.zeros((1, 6, 2, 2), numpy.float32),))
