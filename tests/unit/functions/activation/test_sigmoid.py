"""sigmoid and hard_sigmoid: values, gradients, saturation, memory, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.activation.hard_sigmoid import hard_sigmoid
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [(), (3,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sigmoid_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, low=-3.0, high=3.0)
    check_function(sigmoid, (x,), lambda x: 1 / (1 + numpy.exp(-x)))


def test_sigmoid_saturates_without_overflow():
    with numpy.errstate(all="raise"):
        y = sigmoid(numpy.array([-1000.0, 1000.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [0.0, 1.0])


def test_sigmoid_keeps_only_its_output_for_backward():
    x = Variable(numpy.ones(3, numpy.float32))
    y = sigmoid(x)
    assert x.node.data is None
    assert y.node.data is not None


def test_sigmoid_float_input_is_checked_without_building_expressions(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the expression check ran on a float input")

    monkeypatch.setattr(type_check, "get_light_types", fail)
    assert sigmoid(numpy.zeros(2, numpy.float32)).array[0] == 0.5


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_hard_sigmoid_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, low=-4.0, high=4.0)
    # Keep away from the kinks at +-2.5.
    x[abs(abs(x) - 2.5) < 0.2] = 1.0
    check_function(hard_sigmoid, (x,), lambda x: numpy.clip(0.2 * x + 0.5, 0, 1))


@pytest.mark.parametrize("func, name", [(sigmoid, "Sigmoid"), (hard_sigmoid, "HardSigmoid")])
def test_integer_input_is_rejected(func, name):
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*x\.dtype"):
        func(numpy.arange(3))


def test_hard_sigmoid_of_a_0_d_input_meets_its_constants_in_double_precision_as_on_numpy_1():
    # NumPy 1 took a 0-d float32 array for a scalar, so Chainer's x * 0.2 + 0.5 ran in float64.
    rng = numpy.random.RandomState(0)
    values = rng.uniform(-3, 3, 200).astype(numpy.float32)
    differs = 0
    for value in values:
        x = Variable(numpy.array(value))
        y = hard_sigmoid(x)
        expected = numpy.float32(min(1.0, max(0.0, numpy.float64(value) * 0.2 + 0.5)))
        assert y.array.shape == () and y.array.tobytes() == expected.tobytes()
        differs += expected != numpy.float32(numpy.clip(value * numpy.float32(0.2)
                                                        + numpy.float32(0.5), 0, 1))
        y.grad = numpy.array(numpy.float32(0.7))
        y.backward()
        inside = -2.5 < value < 2.5
        assert x.grad.tobytes() == numpy.float32(
            numpy.float64(numpy.float32(0.7)) * 0.2 * inside).tobytes()
    assert differs  # the case tells float64 from float32 apart
