"""average (F.mean): plain and weighted means, gradients, argument errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.math.average import Mean, average
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("axis", [None, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_mean_matches_numpy(axis, keepdims, dtype, uniform, check_function):
    check_function(lambda x: average(x, axis=axis, keepdims=keepdims),
                   (uniform((2, 3, 4), dtype),),
                   lambda x: numpy.mean(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_weighted_along_one_axis_matches_numpy(axis, keepdims, dtype, uniform, check_function):
    x = uniform((2, 3, 4), dtype)
    w = uniform((x.shape[axis],), dtype, 0.5, 1.5)

    def reference(x, w):
        return numpy.expand_dims(numpy.average(x, axis=axis, weights=w), axis) if keepdims \
            else numpy.average(x, axis=axis, weights=w)

    check_function(lambda x, w: average(x, axis=axis, weights=w, keepdims=keepdims), (x, w),
                   reference)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_weighted_over_all_elements_matches_numpy(dtype, uniform, check_function):
    x = uniform((2, 3), dtype)
    w = uniform((2, 3), dtype, 0.5, 1.5)
    check_function(lambda x, w: average(x, weights=w), (x, w),
                   lambda x, w: numpy.average(x, weights=w))


def test_weights_as_plain_array_get_no_gradient():
    x = Variable(numpy.arange(3, dtype=numpy.float32))
    y = average(x, axis=0, weights=numpy.array([1.0, 1.0, 2.0], numpy.float32))
    assert y.array == pytest.approx((0 + 1 + 4) / 4)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [0.25, 0.25, 0.5])


def test_argument_errors():
    x = numpy.zeros((2, 3), numpy.float32)
    w = numpy.ones(3, numpy.float32)
    with pytest.raises(ValueError, match="tuple axis is not supported when weights is given"):
        average(x, axis=(0, 1), weights=numpy.ones((2, 3), numpy.float32))
    with pytest.raises(ValueError, match="duplicate value"):
        average(x, axis=(1, -1), weights=w)
    with pytest.raises(ValueError, match="duplicate value in axis"):
        average(x, axis=(1, 1))
    with pytest.raises(TypeError, match="axis must be"):
        average(x, axis=1.0)
    with pytest.raises(type_check.InvalidType, match=r"Mean \(Forward\)"):
        average(x, axis=2)
    with pytest.raises(type_check.InvalidType):
        Mean(None, False).apply((numpy.arange(3),))


@pytest.mark.parametrize("shape, axis, keepdims", [
    ((0,), None, False), ((0, 3), None, True), ((0, 3), 0, False), ((0, 3), -2, True),
    ((2, 0), (0, 1), False), ((2, 0, 3), (1,), False)])
def test_empty_mean_raises_zero_division_error(shape, axis, keepdims):
    x = numpy.zeros(shape, numpy.float32)
    with pytest.raises(ZeroDivisionError, match=r"mean must average at least one element, got "
                                                r"none over [\s\S]*float division by zero"):
        average(x, axis=axis, keepdims=keepdims)


def test_empty_mean_message_names_the_axes_and_shape():
    with pytest.raises(ZeroDivisionError, match=r"over axis=0 of x with shape \(0, 3\)"):
        average(numpy.zeros((0, 3), numpy.float32), axis=0)
    with pytest.raises(ZeroDivisionError, match=r"over all axes of x with shape \(0,\)"):
        average(numpy.zeros((0,), numpy.float32))


def test_mean_of_empty_x_over_nonempty_axis_is_empty():
    x = Variable(numpy.zeros((0, 3), numpy.float32))
    y = average(x, axis=1)
    assert y.shape == (0,)
    y.grad = numpy.zeros((0,), numpy.float32)
    y.backward()
    assert x.grad.shape == (0, 3)


def test_weighted_empty_average_is_nan_like_chainer():
    with numpy.errstate(invalid="ignore", divide="ignore"):
        y = average(numpy.zeros((0, 3), numpy.float32), axis=0,
                    weights=numpy.zeros((0,), numpy.float32))
    assert y.shape == (3,) and numpy.isnan(y.array).all()
