"""concat: values along any axis, gradients split back, type checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import using_config
from chainer_compat.functions.array.concat import concat
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shapes, axis", [
    ([(2, 3), (2, 1), (2, 4)], 1), ([(1, 3), (2, 3)], 0), ([(2, 2, 3), (2, 2, 1)], -1),
    ([(4,)], 0), ([(2, 0), (2, 3)], 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shapes, axis, dtype, uniform, check_function):
    xs = tuple(uniform(shape, dtype) for shape in shapes)
    check_function(lambda *xs: concat(xs, axis), xs,
                   lambda *xs: numpy.concatenate(xs, axis=axis))


def test_default_axis_is_one():
    assert concat([numpy.ones((2, 3)), numpy.ones((2, 2))]).shape == (2, 5)


def test_non_integer_axis_is_rejected():
    with pytest.raises(TypeError, match="axis must be int"):
        concat([numpy.ones((2, 3))], axis=1.5)


def test_mismatched_shapes_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Concat \(Forward\)[\s\S]*shape\[0\]"):
        concat([numpy.ones((2, 3)), numpy.ones((3, 3))], axis=1)


def test_mismatched_dtypes_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"dtype"):
        concat([numpy.ones((2, 3), numpy.float32), numpy.ones((2, 3))], axis=1)


def test_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"axis"):
        concat([numpy.ones((2, 3))], axis=2)


def test_no_input_is_rejected():
    with pytest.raises(type_check.InvalidType):
        concat([], axis=0)


@pytest.mark.parametrize("axis", [2, -3])
def test_axis_out_of_range_with_type_check_off_is_numpys_axis_error(axis):
    # Chainer reaches numpy.concatenate there; reading the shapes first gave an IndexError.
    with using_config("type_check", False), pytest.raises(numpy.exceptions.AxisError):
        concat([numpy.ones((2, 3)), numpy.ones((2, 3))], axis=axis)
