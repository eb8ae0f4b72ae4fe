"""Chainer-visible behaviour of ``chainer.utils.sparse`` on COO index arrays: which order
``get_order`` reports and how mismatched ``row``/``col`` are rejected. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
sparse = importlib.import_module(chainer.__name__ + ".utils.sparse")


def _indices(*values: int) -> numpy.ndarray:
    return numpy.array(values, numpy.int32)


@pytest.mark.parametrize(("row", "col", "expected"), [
    ((0, 0, 1), (0, 2, 1), "C"),
    ((1, 0, 1), (0, 1, 1), "F"),
    ((1, 0, 1), (1, 0, 0), "other"),
])
def test_get_order_names_the_sort_order(row: tuple[int, ...], col: tuple[int, ...],
                                        expected: str) -> None:
    assert sparse.get_order(_indices(*row), _indices(*col)) == expected


def test_get_order_rejects_row_and_col_of_different_shapes() -> None:
    with pytest.raises(ValueError, match="shape of row and col must be the same"):
        sparse.get_order(_indices(0, 1, 1), _indices(0, 1))


def test_coo_matrix_without_order_rejects_row_and_col_of_different_shapes() -> None:
    data = numpy.ones(2, numpy.float32)
    with pytest.raises(ValueError):
        sparse.CooMatrix(data, _indices(0, 1, 1), _indices(0, 1), (2, 2))


@pytest.mark.parametrize(("row", "col"), [
    ((0, 1, -1), (0, 1, 2)),
    ((0, 1, 2), (0, -1, 2)),
    ((0, 2, 4, 1, -1), (1, 3, 0, -1, 4)),
])
def test_get_order_rejects_padding_in_only_one_of_row_and_col(row: tuple[int, ...],
                                                              col: tuple[int, ...]) -> None:
    # Padding (a negative index) must sit at the same position in both arrays.
    with pytest.raises(ValueError):
        sparse.get_order(_indices(*row), _indices(*col))


def test_get_order_accepts_padding_in_both_row_and_col() -> None:
    assert sparse.get_order(_indices(0, 1, -1), _indices(1, 0, -1)) == "C"
