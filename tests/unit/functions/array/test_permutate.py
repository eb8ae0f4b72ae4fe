"""permutate: values along any axis, the inverse, gradients, index checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, using_config
from chainer_compat.functions.array.permutate import permutate
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("inv", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(axis, inv, dtype, xp, uniform, check_function):
    x = uniform((4, 4, 3) if axis != -1 else (2, 4, 4), dtype)
    host_indices = numpy.array([2, 0, 3, 1], numpy.int32)
    indices = xp.asarray(host_indices)
    order = numpy.argsort(host_indices) if inv else host_indices
    check_function(lambda x: permutate(x, indices, axis, inv), (x,),
                   lambda x: numpy.take(x, order, axis=axis))


def test_indices_may_be_a_variable():
    x = numpy.arange(3.0)
    numpy.testing.assert_array_equal(
        permutate(x, Variable(numpy.array([1, 2, 0], numpy.int32))).array, [1.0, 2.0, 0.0])


def test_length_mismatch_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Permutate \(Forward\)[\s\S]*indices"):
        permutate(numpy.ones(3), numpy.array([1, 0], numpy.int32))


def test_float_indices_are_rejected_with_value_error():
    with pytest.raises(ValueError, match=r"^indices should be a one-dimensional int array"):
        permutate(numpy.ones(2), numpy.array([1.0, 0.0]))


@pytest.mark.parametrize("indices, message", [([0, 0, 1], "duplicate"), ([0, 3, 1], "Out of")])
def test_non_permutations_are_rejected_in_debug_mode(indices, message):
    with using_config("debug", True), pytest.raises(ValueError, match=message):
        permutate(numpy.ones(3), numpy.array(indices, numpy.int32))
