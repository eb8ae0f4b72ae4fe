"""expand_dims, squeeze and flatten: values, gradients, axis checks."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

from chainer_compat import using_config
from chainer_compat.functions.array.expand_dims import expand_dims
from chainer_compat.functions.array.flatten import flatten
from chainer_compat.functions.array.squeeze import squeeze
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, axis", [((2, 3), 0), ((2, 3), 2), ((2, 3), -1), ((2, 3), -3),
                                         ((), 0)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_expand_dims_values_and_gradients(shape, axis, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: expand_dims(x, axis), (x,), lambda x: numpy.expand_dims(x, axis))


@pytest.mark.parametrize("shape, axis", [((1, 3, 1), None), ((1, 3, 1), 0), ((1, 3, 1), (0, 2)),
                                         ((1, 3, 1), -1), ((1,), None), ((2, 3), None)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_squeeze_values_and_gradients(shape, axis, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: squeeze(x, axis), (x,), lambda x: numpy.squeeze(x, axis))


@pytest.mark.parametrize("shape", [(2, 3), (), (2, 1, 4)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flatten_values_and_gradients(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(flatten, (x,), lambda x: x.ravel())


def test_flatten_of_non_contiguous_input_is_c_ordered():
    x = numpy.arange(6.0).reshape(2, 3).T
    numpy.testing.assert_array_equal(flatten(x).array, x.ravel())


@pytest.mark.parametrize("shape, labels", [((2, 3), ["Reshape"]), ((4,), [])])
def test_flatten_applies_reshape_as_chainer(shape, labels):
    # Chainer 7.8.1's flatten is reshape(x, (x.size,)): no node for a 1-D x.
    with LabelRecorder() as recorder:
        y = flatten(numpy.ones(shape, numpy.float32))
    assert recorder.labels == labels and y.shape == (numpy.prod(shape),)


@pytest.mark.parametrize("axis", [3, -4])
def test_expand_dims_axis_out_of_range_is_rejected(axis):
    with pytest.raises(type_check.InvalidType, match=r"ExpandDims \(Forward\)[\s\S]*ndim"):
        expand_dims(numpy.ones((2, 3)), axis)


def test_expand_dims_non_integer_axis_is_rejected():
    with pytest.raises(TypeError, match="axis must be int"):
        expand_dims(numpy.ones((2, 3)), 1.0)


def test_squeeze_of_a_long_axis_is_rejected():
    with pytest.raises(ValueError, match="length one"):
        squeeze(numpy.ones((2, 3)), 0)


def test_squeeze_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Squeeze \(Forward\)[\s\S]*ndim"):
        squeeze(numpy.ones((1, 3)), 2)


def test_squeeze_bad_axis_type_is_rejected():
    with pytest.raises(TypeError, match="axis must be None, int or tuple of ints"):
        squeeze(numpy.ones((1, 3)), [0])


def test_squeeze_of_a_long_axis_keeps_numpys_wording():
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has size "
                                         "not equal to one"):
        squeeze(numpy.ones((1, 3)), 1)


@pytest.mark.parametrize("axis", [2, -3, (0, 2)])
def test_squeeze_axis_out_of_range_with_type_check_off_is_numpys_axis_error(axis):
    # Chainer reaches numpy.squeeze there; reading x.shape[axis] first gave an IndexError.
    with using_config("type_check", False), pytest.raises(numpy.exceptions.AxisError):
        squeeze(numpy.ones((1, 3)), axis)
