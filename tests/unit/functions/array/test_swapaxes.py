"""swapaxes, rollaxis and moveaxis: values, gradients through the inverse permutation, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.moveaxis import moveaxis
from chainer_compat.functions.array.rollaxis import rollaxis
from chainer_compat.functions.array.swapaxes import Swapaxes, swapaxes
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("axis1, axis2", [(0, 2), (1, 1), (-1, 0)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_swapaxes_values_and_gradients(axis1, axis2, dtype, uniform, check_function):
    x = uniform((2, 3, 4), dtype)
    check_function(lambda x: swapaxes(x, axis1, axis2), (x,),
                   lambda x: numpy.swapaxes(x, axis1, axis2))


@pytest.mark.parametrize("axis, start", [(2, 0), (0, 3), (0, 2), (1, 1), (-1, -3), (0, -1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rollaxis_values_and_gradients(axis, start, dtype, uniform, check_function):
    x = uniform((2, 3, 4), dtype)
    check_function(lambda x: rollaxis(x, axis, start), (x,),
                   lambda x: numpy.rollaxis(x, axis, start))


@pytest.mark.parametrize("source, destination", [
    (0, -1), (-1, 0), ((0, 1), (2, 0)), ((2, 0), (0, 1)), ((), ())])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_moveaxis_values_and_gradients(source, destination, dtype, uniform, check_function):
    x = uniform((2, 3, 4), dtype)
    check_function(lambda x: moveaxis(x, source, destination), (x,),
                   lambda x: numpy.moveaxis(x, source, destination))


@pytest.mark.parametrize("axis1, axis2, name, axis", [
    (0, 2, "axis2", 2), (5, 0, "axis1", 5), (0, -3, "axis2", -3), (7, 9, "axis1", 7)])
def test_swapaxes_axis_out_of_range_raises_axis_error(axis1, axis2, name, axis):
    with pytest.raises(numpy.exceptions.AxisError) as info:
        swapaxes(numpy.ones((2, 3)), axis1, axis2)
    # NumPy's (and so Chainer's) wording, and the AxisError attributes.
    assert info.match(rf"{name} must be in \[-2, 2\)")
    assert f"{name}: axis {axis} is out of bounds for array of dimension 2" in str(info.value)
    assert (info.value.axis, info.value.ndim) == (axis, 2)
    assert isinstance(info.value, ValueError) and isinstance(info.value, IndexError)


def test_swapaxes_non_integer_axis_raises_type_error():
    with pytest.raises(TypeError, match="axis2 must be int"):
        swapaxes(numpy.ones((2, 3)), 0, 1.0)


def test_swapaxes_wrong_input_count_still_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"Swapaxes \(Forward\)"):
        Swapaxes(0, 1).apply((numpy.ones((2, 3)), numpy.ones((2, 3))))


@pytest.mark.parametrize("axis, start", [(2, 0), (0, 3), (0, -3)])
def test_rollaxis_out_of_range_is_rejected(axis, start):
    with pytest.raises(type_check.InvalidType, match=r"Rollaxis \(Forward\)[\s\S]*ndim"):
        rollaxis(numpy.ones((2, 3)), axis, start)


def test_rollaxis_non_integer_start_is_rejected():
    with pytest.raises(TypeError, match="start must be int"):
        rollaxis(numpy.ones((2, 3)), 0, 1.0)


def test_moveaxis_length_mismatch_is_rejected():
    with pytest.raises(ValueError, match="same number of axes"):
        moveaxis(numpy.ones((2, 3)), (0, 1), 0)


def test_moveaxis_repeated_axis_is_rejected():
    with pytest.raises(ValueError, match="repeat an axis"):
        moveaxis(numpy.ones((2, 3)), (0, -2), (0, 1))


def test_moveaxis_bad_type_is_rejected():
    with pytest.raises(TypeError, match="source must be int or tuple of int"):
        moveaxis(numpy.ones((2, 3)), 0.5, 0)


def test_moveaxis_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Moveaxis \(Forward\)[\s\S]*ndim"):
        moveaxis(numpy.ones((2, 3)), 2, 0)
