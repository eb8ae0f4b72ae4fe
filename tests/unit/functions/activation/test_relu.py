"""relu: values, first and second order gradients, type errors, memory and the cheap check."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.activation import relu as relu_module
from chainer_compat.functions.activation.relu import ReLU, relu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [(), (3,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype, gap=0.1)
    check_function(relu, (x,), lambda x: numpy.maximum(x, 0))


def test_gradient_is_zero_at_zero():
    x = Variable(numpy.array([-1.0, 0.0, 2.0], numpy.float32))
    y = relu(x)
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 0.0, 1.0])


def test_integer_input_is_rejected_with_the_function_name():
    with pytest.raises(type_check.InvalidType, match=r"ReLU \(Forward\)[\s\S]*x\.dtype\.kind"):
        relu(numpy.arange(3, dtype=numpy.int32))


def test_two_inputs_are_rejected():
    with pytest.raises(type_check.InvalidType, match="argument"):
        ReLU().apply((numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.float32)))


def test_keeps_only_its_output_for_backward():
    x = Variable(numpy.ones(3, numpy.float32))
    y = relu(x)
    assert x.node.data is None
    assert y.node.data is not None


def test_float_input_is_checked_without_building_expressions(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the expression check ran on a float input")

    monkeypatch.setattr(type_check, "get_types", fail)
    monkeypatch.setattr(type_check, "get_light_types", fail)
    y = relu(numpy.array([-1.0, 2.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [0.0, 2.0])


def test_output_of_zero_dimensional_input_is_an_array():
    y = relu(numpy.array(-3.0, numpy.float32))
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == ()


def test_class_lives_at_chainers_module_path():
    assert relu_module.ReLU.__module__ == "chainer_compat.functions.activation.relu"
