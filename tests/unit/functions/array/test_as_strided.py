"""as_strided: views of the whole memory, negative strides, bounds, gradients of every order."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.array.as_strided import as_strided


def test_view_reads_the_memory_not_the_input_view():
    base = numpy.arange(10.0)
    y = as_strided(base[2:5], (2, 3), (3, 1), storage_offset=1)
    numpy.testing.assert_array_equal(y.array, [[1, 2, 3], [4, 5, 6]])
    y_default = as_strided(base[2:5], (3,), (2,))
    numpy.testing.assert_array_equal(y_default.array, [2, 4, 6])


def test_negative_strides_and_bounds():
    base = numpy.arange(6.0)
    numpy.testing.assert_array_equal(as_strided(base, (3,), (-2,), 5).array, [5, 3, 1])
    with pytest.raises(ValueError, match="too small"):
        as_strided(base, (3,), (-2,), 3)
    with pytest.raises(ValueError, match="too large"):
        as_strided(base, (4,), (2,), 0)


@pytest.mark.parametrize("shape,strides,offset", [((3, 3), (2, 1), 1), ((2, 4), (0, 2), 0),
                                                  ((3, 2), (-3, 1), 7)])
def test_gradients_of_first_and_second_order(shape, strides, offset):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal(10)

    def function(x):
        return as_strided(x, shape, strides, offset)

    gy = rng.standard_normal(shape)
    gradient_check.check_backward(function, x, gy)
    gradient_check.check_double_backward(function, x, gy, rng.standard_normal(10))


def test_input_sharing_memory_splits_the_gradient():
    # A broadcast input: all three entries share one memory cell.
    shared = numpy.broadcast_to(numpy.array([2.0]), (3,))
    x = chainer_compat.Variable(shared)
    y = as_strided(x, (2,), (0,), 0)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.full(3, 2.0 / 3))
