"""transpose: values, gradients for any permutation, Variable.T, NumPy's axis errors."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.array.transpose import Transpose, transpose
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, axes", [
    ((2, 3), None), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4), (-1, 0, -2)), ((2,), (0,)), ((), None)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, axes, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: transpose(x, axes), (x,), lambda x: x.transpose(axes))


def test_variable_t_reverses_the_axes():
    x = Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    numpy.testing.assert_array_equal(x.T.array, x.array.T)
    assert x.transpose(1, 0).creator.label == "Transpose"


@pytest.mark.parametrize("axes, error, match", [
    ((0,), ValueError, "axes don't match array"),
    ((0, 1, 2), ValueError, "axes don't match array"),
    ((0, 0), ValueError, r"repeated axis in transpose"),
    ((1, -1), ValueError, r"\(axis 1 appears twice\)"),
    ((0, 2), numpy.exceptions.AxisError, "axis 2 is out of bounds for array of dimension 2"),
    ((0, -3), numpy.exceptions.AxisError, "axis -3 is out of bounds"),
])
def test_axes_that_are_no_permutation_raise_numpys_errors(axes, error, match):
    with pytest.raises(error, match=r"axes must be a permutation of range\(x\.ndim\)") as info:
        transpose(numpy.ones((2, 3)), axes)
    assert info.type is error
    assert info.match(match)


def test_axes_are_checked_in_numpys_order():
    # The length first, then each entry in turn: a repeat before an out-of-range entry.
    with pytest.raises(ValueError, match="axes don't match array"):
        transpose(numpy.ones((2, 3)), (5, 5, 5))
    with pytest.raises(ValueError, match="repeated axis"):
        transpose(numpy.ones((2, 3, 4)), (0, 0, 7))
    with pytest.raises(numpy.exceptions.AxisError):
        transpose(numpy.ones((2, 3, 4)), (7, 0, 0))


@pytest.mark.parametrize("axes", [(1.0, 0), (True, False)])
def test_non_integer_axes_raise_type_error(axes):
    with pytest.raises(TypeError, match="each entry of axes must be int"):
        transpose(numpy.ones((2, 3)), axes)


def test_a_wrong_input_count_still_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"Transpose \(Forward\)"):
        Transpose((1, 0)).apply((numpy.ones((2, 3)), numpy.ones((2, 3))))


def test_without_type_check_numpy_raises_the_same_types():
    with chainer_compat.using_config("type_check", False):
        with pytest.raises(ValueError, match="repeated axis"):
            transpose(numpy.ones((2, 3)), (0, 0))
        with pytest.raises(numpy.exceptions.AxisError):
            transpose(numpy.ones((2, 3)), (0, 2))
