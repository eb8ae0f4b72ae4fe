"""clipped_relu and relu6: values, gradients, the float-only cap, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.activation.clipped_relu import ClippedReLU, clipped_relu, relu6
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("z", [0.5, 20.0])
@pytest.mark.parametrize("shape", [(), (3, 4)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(z, shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, low=-1.0, high=1.0, gap=0.1)
    if z == 0.5:
        x[abs(x - 0.5) < 0.1] = 0.75  # away from the upper kink too
    check_function(lambda x: clipped_relu(x, z), (x,), lambda x: numpy.clip(x, 0, z))


def test_relu6_caps_at_six():
    y = relu6(numpy.array([-1.0, 3.0, 7.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [0.0, 3.0, 6.0])


def test_default_cap_is_twenty():
    y = clipped_relu(numpy.array([25.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [20.0])


def test_integer_cap_is_rejected_with_type_error():
    with pytest.raises(TypeError, match="z must be float"):
        clipped_relu(numpy.zeros(2, numpy.float32), 3)


def test_non_positive_cap_is_rejected():
    with pytest.raises(ValueError, match="z must be positive"):
        ClippedReLU(-1.0)


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"ClippedReLU \(Forward\)[\s\S]*x\.dtype"):
        clipped_relu(numpy.arange(3), 2.0)
