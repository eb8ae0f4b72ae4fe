"""identity: passes arrays through unchanged and gradients back unchanged."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.math.identity import Identity, identity

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_single_input_values_and_gradients(dtype, uniform, check_function):
    check_function(identity, (uniform((2, 3), dtype),), lambda x: x)


def test_several_inputs_give_a_tuple_and_share_the_arrays():
    a = numpy.ones(2, numpy.float32)
    b = numpy.zeros((3, 1), numpy.float64)
    ya, yb = identity(a, b)
    assert ya.array is a
    assert yb.array is b
    assert ya.creator is yb.creator
    assert isinstance(ya.creator, Identity)


def test_each_output_gradient_goes_to_its_own_input(uniform):
    inputs = (uniform((2,), numpy.float64), uniform((3,), numpy.float64))
    grads = tuple(uniform(x.shape, numpy.float64) for x in inputs)
    gradient_check.check_backward(lambda a, b: identity(a, b), inputs, grads)
    gradient_check.check_double_backward(lambda a, b: identity(a, b), inputs, grads, grads)


def test_output_without_gradient_leaves_its_input_without_one():
    a = Variable(numpy.ones(2, numpy.float32))
    b = Variable(numpy.ones(2, numpy.float32))
    ya, _ = identity(a, b)
    ya.grad = numpy.full(2, 3.0, numpy.float32)
    ya.backward()
    numpy.testing.assert_array_equal(a.grad, [3.0, 3.0])
    assert b.grad is None
