"""scatter_add: values with repeated indices, gradients for both inputs, shape checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.scatter_add import scatter_add
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(a, slices, b):
    y = a.copy()
    numpy.add.at(y, slices, b)
    return y


@pytest.mark.parametrize("slices, b_shape", [
    ((slice(None), 1), (3,)), (([0, 0, 2],), (3, 4)), ((Ellipsis, [1, 3, 1]), (3, 3)),
    (1, (4,)), ((numpy.array([True, False, True]),), (2, 4))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(slices, b_shape, dtype, uniform, check_function):
    a = uniform((3, 4), dtype)
    b = uniform(b_shape, dtype)
    check_function(lambda a, b: scatter_add(a, slices, b), (a, b),
                   lambda a, b: _reference(a, slices, b))


def test_input_is_left_unchanged():
    a = numpy.zeros(3, numpy.float32)
    scatter_add(a, [0, 0], numpy.ones(2, numpy.float32))
    numpy.testing.assert_array_equal(a, 0)


def test_repeated_indices_accumulate():
    y = scatter_add(Variable(numpy.zeros(3)), [0, 0], numpy.ones(2))
    numpy.testing.assert_array_equal(y.array, [2.0, 0.0, 0.0])


def test_broadcasting_b_is_rejected():
    with pytest.raises(ValueError, match="does not support automatic broadcasting"):
        scatter_add(numpy.zeros((3, 4)), (slice(None), 0), numpy.ones(1))


def test_too_many_indices_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"ScatterAdd \(Forward\)[\s\S]*a\.ndim"):
        scatter_add(numpy.zeros(3), (0, 0), numpy.ones(()))
