"""where: values with broadcasting, gradients for both branches, type checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.where import where
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("c_shape, x_shape, y_shape", [
    ((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), (2, 1)), ((3,), (2, 3), ()), ((), (2,), (2,))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(c_shape, x_shape, y_shape, dtype, xp, uniform,
                                          check_function):
    condition = xp.asarray(numpy.random.uniform(-1, 1, c_shape) > 0)
    x = uniform(x_shape, dtype)
    y = uniform(y_shape, dtype)
    expected_condition = numpy.asarray(condition.get() if hasattr(condition, "get") else condition)
    check_function(lambda x, y: where(condition, x, y), (x, y),
                   lambda x, y: numpy.where(expected_condition, x, y))


def test_condition_may_be_a_variable():
    condition = Variable(numpy.array([True, False]))
    numpy.testing.assert_array_equal(
        where(condition, numpy.ones(2), numpy.zeros(2)).array, [1.0, 0.0])


def test_non_boolean_condition_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Where \(Forward\)[\s\S]*condition"):
        where(numpy.ones(2), numpy.ones(2), numpy.zeros(2))


def test_mismatched_dtypes_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype == y\.dtype"):
        where(numpy.ones(2, bool), numpy.ones(2, numpy.float32), numpy.zeros(2))


def test_shapes_that_do_not_broadcast_are_rejected():
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        where(numpy.ones(2, bool), numpy.ones(3), numpy.zeros(3))


@pytest.mark.parametrize("condition", [True, numpy.bool_(False)])
def test_a_scalar_condition_selects_a_whole_input_as_in_chainer(condition):
    x = Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = Variable(numpy.array([3.0, 4.0], numpy.float32))
    z = where(condition, x, y)
    numpy.testing.assert_array_equal(z.array, x.array if condition else y.array)
    z.grad = numpy.ones(2, numpy.float32)
    z.backward()
    assert x.grad.tolist() == ([1.0, 1.0] if condition else [0.0, 0.0])
    assert y.grad.tolist() == ([0.0, 0.0] if condition else [1.0, 1.0])
