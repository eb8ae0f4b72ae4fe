"""bias (and scale, for the y alignment they share): values, gradients, shape errors."""

from __future__ import annotations

import operator

import numpy
import pytest

import chainer_compat
from chainer_compat import variable
from chainer_compat.functions.math.bias import bias
from chainer_compat.functions.math.scale import scale
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = [((2, 3, 4), (3,), 1), ((2, 3, 4), (3, 4), 1), ((2, 3, 4), (2,), 0),
         ((2, 3, 4), (4,), 2), ((2, 3), (2, 3), 0)]


def _aligned(y, x_shape, axis):
    return y.reshape((1,) * axis + y.shape + (1,) * (len(x_shape) - axis - y.ndim))


@pytest.mark.parametrize("x_shape, y_shape, axis", CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, y_shape, axis, dtype, uniform,
                                          check_function):
    check_function(lambda x, y: bias(x, y, axis),
                   (uniform(x_shape, dtype), uniform(y_shape, dtype)),
                   lambda x, y: x + _aligned(y, x_shape, axis))


def test_default_axis_is_one():
    x = numpy.zeros((2, 3), numpy.float32)
    y = numpy.arange(3, dtype=numpy.float32)
    numpy.testing.assert_array_equal(bias(x, y).array, numpy.tile(y, (2, 1)))


# compat: Chainer broadcasts the aligned y to x's shape, so y may hold 1 where x does not, or
# be a 0-d array.
BROADCAST_CASES = [((2, 3, 4), (1,), 1), ((2, 3, 4), (3, 1), 1), ((2, 3, 4), (1, 4), 1),
                   ((2, 3, 4), (2, 1, 1), 0), ((2, 3, 4), (), 1), ((2, 3, 4), (), 3)]


# bias and scale share the alignment of y (bias._align): the tests below cover both.
@pytest.mark.parametrize("function, combine", [(bias, operator.add), (scale, operator.mul)])
@pytest.mark.parametrize("x_shape, y_shape, axis", BROADCAST_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_broadcastable_y_values_and_gradients_match_numpy(function, combine, x_shape, y_shape,
                                                          axis, dtype, uniform, check_function):
    check_function(lambda x, y: function(x, y, axis),
                   (uniform(x_shape, dtype), uniform(y_shape, dtype)),
                   lambda x, y: combine(x, _aligned(y, x_shape, axis)))


@pytest.mark.parametrize("function", [bias, scale])
@pytest.mark.parametrize("x_shape, y_shape, axis", BROADCAST_CASES)
def test_broadcastable_y_gradient_has_y_shape(xp, function, x_shape, y_shape, axis):
    x = variable.Variable(xp.asarray(numpy.random.uniform(-1, 1, x_shape)))
    y = variable.Variable(xp.asarray(numpy.random.uniform(-1, 1, y_shape)))
    output = function(x, y, axis)
    output.grad = xp.ones(x_shape)
    output.backward()
    assert x.grad.shape == x_shape and y.grad.shape == y_shape


@pytest.mark.parametrize("x_shape, y_shape, axis, aligned", [
    ((2, 3, 4), (4,), 1, (1, 4, 1)), ((2, 3), (4,), 1, (1, 4)), ((2, 3, 4), (3,), 2, (1, 1, 3)),
    ((2, 3), (3, 4), 1, (1, 3, 4)), ((2, 3, 4), (4,), -1, (4, 1, 1, 1))])
@pytest.mark.parametrize("function", [bias, scale])
def test_non_broadcastable_y_raises_invalid_type(function, x_shape, y_shape, axis, aligned):
    x = numpy.zeros(x_shape, numpy.float32)
    y = numpy.zeros(y_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType) as info:
        function(x, y, axis)
    message = str(info.value)
    assert message.startswith(f"y of {function.__name__} must broadcast to x's shape")
    assert f"y.shape={y_shape}" in message and f"x.shape={x_shape}" in message
    assert str(aligned) in message
    # A negative axis never works (Chainer does not wrap it); the message says so.
    assert ("non-negative axis" in message) == (axis < 0)


@pytest.mark.parametrize("function", [bias, scale])
@pytest.mark.parametrize("y_shape, axis", [((4,), 1), ((3,), -1)])
def test_non_broadcastable_y_with_type_checks_off_raises_numpys_value_error(function, y_shape,
                                                                          axis):
    # compat: Chainer leaves it to NumPy's broadcast then.
    x = numpy.zeros((2, 3, 4), numpy.float32)
    with chainer_compat.using_config("type_check", False):
        with pytest.raises(ValueError) as info:
            function(x, numpy.zeros(y_shape, numpy.float32), axis)
    assert not isinstance(info.value, type_check.InvalidType)
