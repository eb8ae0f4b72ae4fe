"""utils.sparse: to_coo and to_dense round trips, padding, get_order, constructor errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.utils.sparse import CooMatrix, get_order, to_coo


def test_round_trip_and_padding():
    rng = numpy.random.default_rng(0)
    dense = rng.standard_normal((3, 4, 5)) * (rng.random((3, 4, 5)) > 0.6)
    matrix = to_coo(dense, ldnz=2)
    largest = max(int((d != 0).sum()) for d in dense)
    assert matrix.data.shape == (3, largest) and matrix.row.dtype == numpy.int32
    assert matrix.shape == (4, 5) and matrix.order == "C"
    numpy.testing.assert_array_equal(matrix.to_dense(), dense)
    single = to_coo(dense[0], ldnz=40)
    assert single.data.shape == (40,) and (single.row[(dense[0] != 0).sum():] == -1).all()
    numpy.testing.assert_array_equal(single.to_dense(), dense[0])


def test_repeated_positions_add_up():
    matrix = CooMatrix(numpy.array([1.0, 2.0]), numpy.array([0, 0]), numpy.array([1, 1]),
                       (1, 2))
    numpy.testing.assert_array_equal(matrix.to_dense(), [[0.0, 3.0]])


@pytest.mark.parametrize("row,col,order", [([0, 0, 1], [0, 2, 1], "C"),
                                           ([1, 0, 1], [0, 1, 1], "F"),
                                           ([1, 0], [1, 0], "other"),
                                           ([[0, 1], [1, 0]], [[1, 0], [1, 0]], "other"),
                                           ([[0, -1], [1, 0]], [[1, -1], [0, 1]], "F")])
def test_get_order(row, col, order):
    assert get_order(numpy.array(row), numpy.array(col)) == order


@pytest.mark.parametrize("data,row,col,shape,order", [
    (numpy.zeros((1, 1, 1)), numpy.zeros((1, 1, 1)), numpy.zeros((1, 1, 1)), (2, 2), None),
    (numpy.zeros(2), numpy.zeros((1, 2)), numpy.zeros(2), (2, 2), None),
    (numpy.zeros(2), numpy.zeros(2), numpy.zeros(2), (2,), None),
    (numpy.zeros(2), numpy.zeros(2), numpy.zeros(2), (0, 2), None),
    (numpy.zeros(2), numpy.zeros(2), numpy.zeros(2), (2, 2), "X"),
])
def test_constructor_errors(data, row, col, shape, order):
    with pytest.raises(ValueError):
        CooMatrix(data, row.astype(int), col.astype(int), shape, order)


def test_to_coo_rejects_vectors():
    with pytest.raises(ValueError, match="ndim of x must be 2 or 3"):
        to_coo(numpy.zeros(3))
