"""``numpy.matmul`` on NumPy 2 with the bits NumPy 1.26 (and so Chainer 7.8.1) produced.
Layer 1: imports only numpy. See NOTE [NumPy 1 matmul dispatch].
"""

from __future__ import annotations

from typing import Any

import numpy

# NOTE [NumPy 1 matmul dispatch]
# NumPy 1.26's matmul inner loop looks at one matrix pair at a time (the core sizes m x n and
# n x p and the byte strides of the operands, the same for every matrix of a stack) and calls
# BLAS only for float32, float64, complex64 and complex128 when:
#   * m == p == 1 (a row times a column): the dot product, through BLAS ``?dot`` when both
#     contraction strides are positive multiples of the item size, else a plain loop;
#   * n == 1 and (m == 1 or p == 1): never (a plain loop);
#   * m == 1: ``gemv`` when b is blasable and a's contraction stride is a positive multiple of
#     the item size; p == 1: ``gemv`` when a is blasable and b's contraction stride is;
#   * otherwise (m, n, p all >= 2): ``gemm`` (or ``syrk`` for x @ x.T) when both operands are
#     blasable.
# A matrix is blasable in C order when its last stride is the item size and its row stride a
# multiple of the item size at least its row length, or the same with the axes swapped (F
# order): a zero (broadcast) stride, a step slice or a negative stride makes it non-blasable.
# Every other case, every float16 product, and an empty contraction run the plain loop
#     out[m, p] = 0; for n in order: out[m, p] += a[m, n] * b[n, p]
# rounding the product and the sum separately (no FMA), in the operands' dtype, float16 summed
# in float32 and rounded once at the end. NumPy 2 copies a non-blasable operand and calls BLAS,
# so its bits differ there; where NumPy 1.26 called BLAS, NumPy 2 calls the same routine on the
# same operands. Mixed dtypes are cast (copied, so blasable) first. Established empirically
# against NumPy 1.26.4 over 7,600 shapes, layouts and dtypes; the tests are in
# tests/unit/functions/math/test_matmul.py.
_BLAS_DTYPES = frozenset(numpy.dtype(name) for name in
                         ("float32", "float64", "complex64", "complex128"))
_LOOP_DTYPES = _BLAS_DTYPES | {numpy.dtype(numpy.float16)}
# NumPy 1.26 gives up on BLAS for a length beyond the 32-bit int range.
_BLAS_MAX = 2 ** 31 - 2


def _blasable_matrix(outer: int, inner: int, inner_length: int, itemsize: int) -> bool:
    """Whether a matrix with strides (``outer``, ``inner``) and rows of ``inner_length``
    items can be handed to BLAS without a copy."""
    return (inner == itemsize and outer % itemsize == 0
            and inner_length <= outer // itemsize <= _BLAS_MAX)


def _blasable_either_order(strides: tuple[int, int], shape: tuple[int, int],
                           itemsize: int) -> bool:
    rows, columns = shape
    return (_blasable_matrix(strides[0], strides[1], columns, itemsize)
            or _blasable_matrix(strides[1], strides[0], rows, itemsize))


def _blasable_vector(stride: int, itemsize: int) -> bool:
    return stride % itemsize == 0 and 1 <= stride // itemsize <= _BLAS_MAX


def numpy1_uses_loop(a: Any, b: Any) -> bool:
    """Whether NumPy 1.26's ``matmul(a, b)`` ran its plain loop rather than BLAS.

    ``a`` and ``b`` are NumPy arrays of one float dtype with at least one axis each; a 1-D
    ``a`` is one row and a 1-D ``b`` one column.
    """
    dtype = a.dtype
    if dtype not in _BLAS_DTYPES:
        return True
    itemsize = dtype.itemsize
    rows = a.shape[-2] if a.ndim >= 2 else 1
    inner = a.shape[-1]
    columns = b.shape[-1] if b.ndim >= 2 else 1
    if rows == 0 or inner == 0 or columns == 0:
        return True
    if max(rows, inner, columns) > _BLAS_MAX:
        return True
    a_inner_stride = a.strides[-1]
    b_inner_stride = b.strides[-2] if b.ndim >= 2 else b.strides[-1]
    if rows == 1 and columns == 1:
        return not (_blasable_vector(a_inner_stride, itemsize)
                    and _blasable_vector(b_inner_stride, itemsize))
    if inner == 1:
        return True
    a_blasable = a.ndim >= 2 and _blasable_either_order(a.strides[-2:], a.shape[-2:], itemsize)
    b_blasable = b.ndim >= 2 and _blasable_either_order(b.strides[-2:], b.shape[-2:], itemsize)
    if rows == 1:
        return not (b_blasable and _blasable_vector(a_inner_stride, itemsize))
    if columns == 1:
        return not (a_blasable and _blasable_vector(b_inner_stride, itemsize))
    return not (a_blasable and b_blasable)


def loop_matmul(a: Any, b: Any) -> Any:
    """``a @ b`` summed as NumPy 1.26's plain loop sums it: over the contraction index in
    order, each product rounded before it is added (vectorized over the output)."""
    a_matrix = a[None, :] if a.ndim == 1 else a
    b_matrix = b[:, None] if b.ndim == 1 else b
    dtype = a.dtype
    # Float16 products are exact in float32, where the loop sums them.
    work = numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype
    shape = numpy.broadcast_shapes(a_matrix.shape[:-2], b_matrix.shape[:-2]) + (
        a_matrix.shape[-2], b_matrix.shape[-1])
    # Contiguous copies (a's columns, b's rows) change no value and keep each step's reads
    # sequential in memory.
    a_columns = numpy.ascontiguousarray(a_matrix.swapaxes(-1, -2))[..., None]
    b_rows = numpy.ascontiguousarray(b_matrix)[..., None, :]
    total = numpy.zeros(shape, work)
    product = numpy.empty(shape, work)
    for index in range(a_matrix.shape[-1]):
        numpy.multiply(a_columns[..., index, :, :], b_rows[..., index, :, :], out=product,
                       dtype=work)
        total += product
    if a.ndim == 1:
        total = total[..., 0, :]
    if b.ndim == 1:
        total = total[..., 0]
    return total.astype(dtype, copy=False)


def matmul_in_numpy1_order(a: Any, b: Any) -> Any:
    """``numpy.matmul(a, b)`` with NumPy 1.26's bits.

    Args:
        a: Left NumPy operand (at least one axis).
        b: Right NumPy operand (at least one axis).

    Returns:
        The product, as ``numpy.matmul`` returns it.
    """
    if a.dtype != b.dtype:
        # NumPy 1.26 cast (and so copied) the operand of the narrower dtype.
        dtype = numpy.result_type(a, b)
        a = a.astype(dtype, copy=False)
        b = b.astype(dtype, copy=False)
    if a.dtype not in _LOOP_DTYPES or not numpy1_uses_loop(a, b):
        return numpy.matmul(a, b)
    return loop_matmul(a, b)
