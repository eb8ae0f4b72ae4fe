"""utils.add_at: scatter-add with repeated indices, the same on NumPy and CuPy."""

from __future__ import annotations

import warnings

import numpy
import pytest

from chainer_compat import utils


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_add_at_counts_every_repeated_index(xp, dtype):
    target = xp.zeros(4, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # CuPy 14 deprecates cupyx.scatter_add with a warning
        utils.add_at(target, xp.asarray([0, 2, 2, 2]), xp.asarray([1, 2, 3, 4], dtype))
    numpy.testing.assert_array_equal(_host(target), numpy.array([1, 0, 9, 0], dtype))


def test_add_at_on_rows_of_a_matrix(xp):
    target = xp.ones((3, 2), numpy.float32)
    rows = xp.asarray([[1, 1], [2, 2], [3, 3]], numpy.float32)
    utils.add_at(target, xp.asarray([2, 0, 2]), rows)
    numpy.testing.assert_array_equal(_host(target), [[3, 3], [1, 1], [5, 5]])


def test_add_at_with_a_tuple_of_index_arrays(xp):
    target = xp.zeros((2, 3), numpy.float64)
    index = (xp.asarray([0, 1, 0]), xp.asarray([2, 1, 2]))
    utils.add_at(target, index, xp.asarray([1.0, 5.0, 2.0]))
    numpy.testing.assert_array_equal(_host(target), [[0, 0, 3], [0, 5, 0]])


def _host(array):
    return array.get() if hasattr(array, "get") else array
