"""flip, fliplr and flipud: values, gradients, axis and rank checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.flip import flip
from chainer_compat.functions.array.fliplr import fliplr
from chainer_compat.functions.array.flipud import flipud
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, axis", [((3,), 0), ((2, 3), 1), ((2, 3, 4), -1), ((2, 3), -2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flip_values_and_gradients(shape, axis, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: flip(x, axis), (x,), lambda x: numpy.flip(x, axis))


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_fliplr_values_and_gradients(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(fliplr, (x,), numpy.fliplr)


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_flipud_values_and_gradients(shape, dtype, uniform, check_function):
    x = uniform(shape, dtype)
    check_function(flipud, (x,), numpy.flipud)


def test_flip_non_integer_axis_is_rejected():
    with pytest.raises(TypeError, match="axis must be int"):
        flip(numpy.ones(3), None)


@pytest.mark.parametrize("axis", [2, -3])
def test_flip_axis_out_of_range_is_rejected(axis):
    with pytest.raises(type_check.InvalidType, match=r"Flip \(Forward\)[\s\S]*ndim"):
        flip(numpy.ones((2, 3)), axis)


def test_fliplr_of_one_dimension_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"FlipLR \(Forward\)[\s\S]*a\.ndim >= 2"):
        fliplr(numpy.ones(3))


def test_flipud_of_zero_dimensions_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"FlipUD \(Forward\)[\s\S]*a\.ndim >= 1"):
        flipud(numpy.ones(()))
