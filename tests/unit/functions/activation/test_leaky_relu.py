"""leaky_relu: values, gradients for positive, zero and negative slopes, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.activation.leaky_relu import LeakyReLU, leaky_relu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("slope", [0.2, 0.0, -0.5, 1.5])
@pytest.mark.parametrize("shape", [(), (3, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(slope, shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, gap=0.1)
    check_function(lambda x: leaky_relu(x, slope),
                   (x,), lambda x: numpy.where(x >= 0, x, slope * x))


def test_default_slope_is_a_fifth():
    y = leaky_relu(numpy.array([-1.0, 2.0], numpy.float32))
    numpy.testing.assert_allclose(y.array, [-0.2, 2.0])
    assert LeakyReLU().slope == 0.2


def test_zero_slope_gives_no_gradient_to_negative_inputs():
    x = Variable(numpy.array([-1.0, 3.0], numpy.float32))
    y = leaky_relu(x, slope=0.0)
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0])


def test_numpy_scalar_slope_keeps_the_input_dtype():
    y = leaky_relu(numpy.array([-1.0], numpy.float16), numpy.float64(0.5))
    assert y.dtype == numpy.float16


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"LeakyReLU \(Forward\)[\s\S]*x\.dtype"):
        leaky_relu(numpy.arange(3))
