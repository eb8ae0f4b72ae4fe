"""Sparse matrices in COO format for ``functions.sparse_matmul``: ``CooMatrix``, ``to_coo``
(from a dense array) and ``get_order`` (whether the entries are sorted by row or column).

Layer 1: imports backend; ``variable`` (layer 3) is imported inside the functions that wrap
the entries in a Variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend


class CooMatrix:
    """A sparse matrix, or a batch of them, in coordinate (COO) format.

    Entry ``k`` of a matrix puts ``data[k]`` at ``(row[k], col[k])``; repeated positions add
    up. A batch stores each matrix's entries along the last axis of 2-d ``data``, ``row`` and
    ``col``, padded with rows and columns of -1 (and data 0) to a common length.

    Args:
        data: The entries, of shape ``(nnz,)`` or ``(batch, nnz)``.
        row: Their row indices, of ``data``'s shape.
        col: Their column indices, of ``data``'s shape.
        shape: ``(rows, columns)`` of each matrix.
        order: ``'C'`` (entries sorted by row, then column), ``'F'`` (by column, then row),
            ``'other'``, or None to find out with :func:`get_order`. A hint only.
        requires_grad: Whether backprop computes the gradient of ``data``.

    Attributes:
        data: The entries as a Variable.
        row: As given.
        col: As given.
        shape: As given.
        order: The order, found out if it was None.

    Raises:
        ValueError: On ranks or a shape or an order out of range (Chainer's messages).
    """

    def __init__(self, data: Any, row: Any, col: Any, shape: Any, order: str | None = None,
                 requires_grad: bool = False) -> None:
        from chainer_compat import variable  # layer 3: the entries are a Variable

        # compat: Chainer's type and wording for every check.
        if not 1 <= data.ndim <= 2:
            raise ValueError("ndim of data must be 1 or 2.")
        if not data.ndim == row.ndim == col.ndim:
            raise ValueError("ndim of data, row and col must be the same.")
        if len(shape) != 2:
            raise ValueError("length of shape must be 2.")
        if not (shape[0] > 0 and shape[1] > 0):
            raise ValueError("numbers in shape must be greater than 0.")
        if order not in ("C", "F", "other", None):
            raise ValueError("order must be 'C', 'F', 'other' or None.")
        self.data = variable.Variable(data, requires_grad=requires_grad)
        self.row = row
        self.col = col
        self.shape = shape
        self.order = get_order(row, col) if order is None else order

    def to_dense(self) -> Any:
        """The dense array: ``shape``, or ``(batch, *shape)`` for a batch; padding entries
        (negative indices) are left out."""
        data = self.data.array
        xp = backend.get_array_module(data)
        if data.ndim == 1:
            dense = xp.zeros(tuple(self.shape), dtype=data.dtype)
            _add_entries(xp, dense, self.row, self.col, data)
        else:
            dense = xp.zeros((data.shape[0],) + tuple(self.shape), dtype=data.dtype)
            for i in range(data.shape[0]):
                _add_entries(xp, dense[i], self.row[i], self.col[i], data[i])
        return dense


def _add_entries(xp: Any, dense: Any, row: Any, col: Any, data: Any) -> None:
    valid = (row >= 0) & (col >= 0)
    rows, cols, values = row[valid], col[valid], data[valid]
    flat = xp.bincount(rows * dense.shape[1] + cols, weights=values, minlength=dense.size)
    dense += flat.reshape(dense.shape).astype(dense.dtype, copy=False)


def to_coo(x: Any, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """The nonzero entries of a dense matrix (or batch of matrices) as a :class:`CooMatrix`.

    Args:
        x: A 2-d array, or a 3-d array of matrices along its first axis.
        ldnz: Minimum number of stored entries per matrix; the rest is padding (row and
            column -1, data 0). A batch always pads to its largest count of nonzeros.
        requires_grad: Whether backprop computes the gradient of the entries.

    Returns:
        The COO matrix, with entries in row-major order and int32 indices.

    Raises:
        ValueError: If ``x`` is neither 2-d nor 3-d.
    """
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        rows, cols = xp.where(x != 0)
        count = len(rows)
        size = count if ldnz is None or ldnz < count else ldnz
        data = xp.zeros(size, dtype=x.dtype)
        row = xp.full(size, -1, dtype=numpy.int32)
        col = xp.full(size, -1, dtype=numpy.int32)
        data[:count] = x[rows, cols]
        row[:count] = rows
        col[:count] = cols
        return CooMatrix(data, row, col, x.shape, requires_grad=requires_grad)
    if x.ndim == 3:
        size = max([int((matrix != 0).sum()) for matrix in x] + [ldnz or 0])
        data = xp.zeros((x.shape[0], size), dtype=x.dtype)
        row = xp.full((x.shape[0], size), -1, dtype=numpy.int32)
        col = xp.full((x.shape[0], size), -1, dtype=numpy.int32)
        for i, matrix in enumerate(x):
            single = to_coo(matrix, size)
            data[i] = single.data.array
            row[i] = single.row
            col[i] = single.col
        return CooMatrix(data, row, col, x.shape[1:], requires_grad=requires_grad)
    raise ValueError(f"ndim of x must be 2 or 3, got {x.ndim}")


def get_order(row: Any, col: Any) -> str:
    """Whether COO entries are sorted by row then column (``'C'``), by column then row
    (``'F'``), or neither (``'other'``); padding entries (negative indices) are ignored.

    Args:
        row: Row indices, 1-d or a 2-d batch.
        col: Column indices of ``row``'s shape.

    Returns:
        ``'C'``, ``'F'`` or ``'other'``.

    Raises:
        ValueError: If ``row`` and ``col`` differ in shape, or an entry is padding (negative)
            in one of them only (Chainer's messages).
    """
    if row.shape != col.shape:
        raise ValueError("shape of row and col must be the same.")  # compat: Chainer's wording
    if ((row < 0) != (col < 0)).any():
        # compat: Chainer's wording
        raise ValueError("invalid index combination of row and col.")
    if _sorted_by(row, col):
        return "C"
    if _sorted_by(col, row):
        return "F"
    return "other"


def _sorted_by(major: Any, minor: Any) -> bool:
    """Whether the entries are sorted by ``major``, ties by ``minor`` (padding skipped)."""
    if major.shape != minor.shape:
        return False
    if major.ndim != 1:
        return all(_sorted_by(major[i], minor[i]) for i in range(major.shape[0]))
    valid = (major >= 0) & (minor >= 0)
    major, minor = major[valid], minor[valid]
    if major.shape[0] <= 1:
        return True
    major_step = major[1:] - major[:-1]
    minor_step = minor[1:] - minor[:-1]
    return bool(((major_step > 0) | ((major_step == 0) & (minor_step >= 0))).all())
