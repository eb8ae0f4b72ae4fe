"""reshape: values, gradients, -1 inference, the no-op shortcut, size errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

from chainer_compat import Variable
from chainer_compat.functions.array.reshape import Reshape, reshape
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("in_shape, out_shape", [
    ((2, 3), (3, 2)), ((2, 3, 4), (6, -1)), ((4,), (2, 1, 2)), ((1,), ()), ((), (1, 1))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(in_shape, out_shape, dtype, uniform, check_function):
    x = uniform(in_shape, dtype)
    check_function(lambda x: reshape(x, out_shape), (x,), lambda x: x.reshape(out_shape))


def test_integer_arrays_are_reshaped():
    assert reshape(numpy.arange(6), (2, 3)).shape == (2, 3)


def test_same_shape_returns_the_variable_itself():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    assert reshape(x, (2, 3)) is x
    assert reshape(x.array, [2, 3]).creator is None


def test_int_shape_is_one_dimensional():
    assert reshape(numpy.ones((2, 3)), 6).shape == (6,)


def test_variable_method_uses_reshape():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    assert isinstance(x.reshape(3, 2).creator, Reshape)


def test_two_unknown_dimensions_are_rejected():
    with pytest.raises(ValueError, match="at most one unknown"):
        reshape(numpy.ones(6), (-1, -1))


@pytest.mark.parametrize("shape", [(4, 2), (4, -1)])
def test_size_mismatch_is_rejected(shape):
    with pytest.raises(type_check.InvalidType, match=r"Reshape \(Forward\)[\s\S]*x\.shape"):
        reshape(numpy.ones(6, numpy.float32), shape)


def test_a_backward_whose_gradient_has_the_input_shape_applies_no_node():
    # reshape(x, (1, -1)) of a (1, 3) input gets a (1, 3) gradient: Chainer's backward goes
    # through reshape(), which passes it on without a Reshape node for hooks to see.
    x = Variable(numpy.ones((1, 3), numpy.float32))
    y = reshape(x, (1, -1))
    y.grad = numpy.full((1, 3), 2.0, numpy.float32)
    with LabelRecorder() as recorder:
        y.backward()
    assert recorder.labels == []
    assert x.grad.shape == (1, 3) and x.grad.tolist() == [[2.0, 2.0, 2.0]]
