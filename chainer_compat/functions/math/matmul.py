"""``matmul`` and ``batch_matmul``: differentiable matrix products.

Layer 5: imports the core and the functions its gradients apply. ``matmul`` follows
``numpy.matmul``: vectors are promoted to matrices and leading (batch) axes broadcast; 0-d
operands are refused.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast
from chainer_compat.functions.array.expand_dims import expand_dims
from chainer_compat.functions.array.rollaxis import rollaxis
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.functions.math.tensordot import tensordot
from chainer_compat.utils import type_check
from chainer_compat.utils._matmul_order import matmul_in_numpy1_order


def _product(a: Any, b: Any, transa: bool, transb: bool, transc: bool) -> Any:
    """``op(a) @ op(b)``; with ``transc``, its transpose, formed as Chainer forms it:
    ``op(b)^T @ op(a)^T`` (another BLAS product than transposing the result, other bits).
    NumPy operands are multiplied as NumPy 1.26 multiplied them (NOTE [NumPy 1 matmul
    dispatch]); CuPy's matmul is used as is."""
    if transc:
        a, b, transa, transb = b, a, not transb, not transa
    xp = backend.get_array_module(a, b)
    if transa and a.ndim >= 2:
        a = a.swapaxes(-1, -2)
    if transb and b.ndim >= 2:
        b = b.swapaxes(-1, -2)
    if xp is numpy:
        return matmul_in_numpy1_order(a, b)
    return xp.matmul(a, b)


# compat: private helpers of Chainer's matmul module, which code written for Chainer imports
# (knmt's constant_batch_mul does).
def _matmul(a: Any, b: Any, transa: bool = False, transb: bool = False,
            transout: bool = False) -> Any:
    """``op(a) @ op(b)`` on arrays; with ``transout``, its transpose, formed as
    ``op(b)^T @ op(a)^T``."""
    return _product(a, b, transa, transb, transout)


def _check_ndim(in_type: Any, lower: int = 1, upper: int = 2) -> None:
    """Type-checks that ``in_type`` has between ``lower`` and ``upper`` axes."""
    type_check.expect(in_type.ndim >= lower, in_type.ndim <= upper)


def _get_check_index(trans: bool, right: bool, row_idx: int = 0, col_idx: int = 1) -> int:
    """The axis of an operand that meets the other in a product: its rows when exactly one of
    ``trans`` (it is transposed) and ``right`` (it is the right operand) holds."""
    return row_idx if trans ^ right else col_idx


class MatMul(FunctionNode):
    """``op(a) @ op(b)`` where ``op`` transposes the last two axes when asked.

    Args:
        transa: Transpose the matrices of ``a`` (ignored for a vector).
        transb: Transpose the matrices of ``b`` (ignored for a vector).
        transc: Transpose the matrices of the result (only when both inputs have ndim >= 2).
        dtype: Output dtype; None keeps NumPy's result dtype.
    """

    def __init__(self, transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: Any = None) -> None:
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(a_type.dtype.kind == "f", b_type.dtype.kind == "f")
        # As in Chainer and numpy.matmul: a 0-d operand is an error, not a scaling.
        type_check.expect(a_type.ndim >= 1, b_type.ndim >= 1)
        a_ndim = type_check.eval(a_type.ndim)
        b_ndim = type_check.eval(b_type.ndim)
        # The contracted length: the last axis of op(a) and the first matrix axis of op(b); a
        # vector a against a matrix is named a.shape[0] in the message, as in Chainer.
        a_axis = -2 if self.transa and a_ndim >= 2 else (0 if a_ndim == 1 < b_ndim else -1)
        b_axis = -1 if self.transb and b_ndim >= 2 else (-2 if b_ndim >= 2 else 0)
        type_check.expect(a_type.shape[a_axis] == b_type.shape[b_axis])
        if a_ndim >= 2 and b_ndim >= 2:
            type_check.expect_broadcast_shapes(a_type.shape[:-2], b_type.shape[:-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        y = _product(a, b, self.transa, self.transb, self.transc)
        return utils.force_array(y, self.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        if a.ndim == 1 or b.ndim == 1:
            return self._vector_gradients(indexes, a, b, gy)
        grads = []
        if 0 in indexes:
            # d op(a) = gP @ op(b).T, where gP = op_c(gy); transposed back when transa.
            ga, = MatMul(self.transc, not self.transb, self.transa, a.dtype).apply((gy, b))
            grads.append(sum_to(ga, a.shape))
        if 1 in indexes:
            # d op(b) = op(a).T @ gP; transposed back when transb.
            gb, = MatMul(not self.transa, self.transc, self.transb, b.dtype).apply((a, gy))
            grads.append(sum_to(gb, b.shape))
        return tuple(grads)

    def _vector_gradients(self, indexes: tuple[int, ...], a: Any, b: Any,
                          gy: Any) -> tuple[Any, ...]:
        """The gradients when ``a`` or ``b`` is a vector, through Chainer's nodes: an outer
        product (broadcast) for the matrix's partner of a vector, a tensordot with the
        matrix for the vector."""

        def outer(left: Any, right: Any, target: Any, swap: bool) -> Any:
            # The product left x right, as a broadcast product when target is a matrix.
            if target.ndim != 1:
                if swap:
                    left, right = right, left
                left = expand_dims(left, -1)
                right = expand_dims(right, -2) if right.ndim > 1 else right
            return cast(left * right, target.dtype)

        grads = []
        if 0 in indexes:
            if b.ndim == 1:
                grads.append(outer(cast(gy, b.dtype), b, a, self.transa))
            else:
                matrix = rollaxis(b, -1 if self.transb else -2)
                grads.append(cast(tensordot(matrix, gy, axes=gy.ndim), a.dtype))
        if 1 in indexes:
            if a.ndim == 1:
                grads.append(outer(a, cast(gy, a.dtype), b, self.transb))
            else:
                matrix = rollaxis(a, -2 if self.transa else -1)
                grads.append(cast(tensordot(matrix, gy, axes=gy.ndim), b.dtype))
        return tuple(grads)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> variable.Variable:
    """Matrix product of ``a`` and ``b`` with ``numpy.matmul``'s rules.

    Two vectors give their inner product; a vector is treated as a row (left) or a column
    (right) and that axis removed from the result; arrays with more than two axes are stacks of
    matrices in their last two axes, and the stacks broadcast.

    Args:
        a: Left operand (float Variable or array).
        b: Right operand (float Variable or array).
        transa: Transpose each matrix of ``a`` first (ignored when ``a`` is 1-D).
        transb: Transpose each matrix of ``b`` first (ignored when ``b`` is 1-D).

    Returns:
        The output Variable.
    """
    y, = MatMul(transa=transa, transb=transb).apply((a, b))
    return y


def _as_matrix_batch(x: Any) -> Any:
    """A ``(B, N)`` input is B column vectors ``(B, N, 1)``; ``(B, M, N)`` is kept."""
    return x.reshape(x.shape[:2] + (-1,))


class BatchMatMul(FunctionNode):
    """Products of two batches of matrices; 2-D inputs are batches of column vectors."""

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(a_type.dtype == numpy.float32, b_type.dtype == numpy.float32,
                          a_type.ndim >= 2, a_type.ndim <= 3,
                          b_type.ndim >= 2, b_type.ndim <= 3)
        a_size = self._matrix_size(a_type, 1 if self.transa else 2)
        b_size = self._matrix_size(b_type, 2 if self.transb else 1)
        type_check.expect(a_size == b_size)

    @staticmethod
    def _matrix_size(in_type: Any, axis: int) -> Any:
        # The implicit third axis of a 2-D input has length one.
        if axis == 2 and type_check.eval(in_type.ndim) == 2:
            return 1
        return in_type.shape[axis]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        y = _product(_as_matrix_batch(a), _as_matrix_batch(b), self.transa, self.transb, False)
        return utils.force_array(y),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        a, b = self.get_retained_inputs()
        return BatchMatMulGrad(self.transa, self.transb).apply((a, b, grad_outputs[0]))


class BatchMatMulGrad(FunctionNode):
    """Both gradients of :class:`BatchMatMul` in one node, as Chainer computes them; inputs
    are ``(a, b, gy)``.

    Args:
        transa: The product's ``transa``.
        transb: The product's ``transb``.
    """

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        a, b, gy = inputs
        ga = _product(gy, _as_matrix_batch(b), False, not self.transb, self.transa)
        gb = _product(_as_matrix_batch(a), gy, not self.transa, False, self.transb)
        return utils.force_array(ga).reshape(a.shape), utils.force_array(gb).reshape(b.shape)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        a, b, gy = self.get_retained_inputs()
        gga, ggb = grad_outputs
        grads: list[Any] = []
        if 0 in indexes or 1 in indexes:
            # a's gradient comes from ggb alone and b's from gga alone. compat: Chainer fails
            # when one of them is missing; the missing one stands in as zeros here and its
            # gradient is None.
            xp = backend.get_array_module(gy.array)
            first = xp.zeros_like(a.array) if gga is None else gga
            second = xp.zeros_like(b.array) if ggb is None else ggb
            ga, gb = BatchMatMulGrad(self.transa, self.transb).apply((first, second, gy))
            if 0 in indexes:
                grads.append(None if ggb is None else ga)
            if 1 in indexes:
                grads.append(None if gga is None else gb)
        if 2 in indexes:
            terms = []
            if gga is not None:
                terms.append(BatchMatMul(self.transa, self.transb).apply((gga, b))[0])
            if ggb is not None:
                terms.append(BatchMatMul(self.transa, self.transb).apply((a, ggb))[0])
            grads.append(terms[0] + terms[1] if len(terms) == 2 else terms[0])
        return tuple(grads)


def batch_matmul(a: Any, b: Any, transa: bool = False,
                 transb: bool = False) -> variable.Variable:
    """Matrix products of two batches of matrices (deprecated: use :func:`matmul`).

    Args:
        a: Left batch (float32): ``(B, N)`` is B ``N x 1`` matrices, ``(B, M, N)`` is B
            ``M x N`` matrices.
        b: Right batch (float32), read the same way.
        transa: Transpose each matrix of ``a`` first.
        transb: Transpose each matrix of ``b`` first.

    Returns:
        A Variable of shape ``(B, rows, columns)``.
    """
    warnings.warn("batch_matmul is deprecated. Use matmul instead.", DeprecationWarning,
                  stacklevel=1)
    y, = BatchMatMul(transa=transa, transb=transb).apply((a, b))
    return y
