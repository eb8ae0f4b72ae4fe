"""``sparse_matmul``: products of a sparse COO matrix (``utils.CooMatrix``) and a dense one,
batched or not, with gradients for the dense operand and the sparse entries.

Layer 5: imports backend, utils, variable, function_node, type_check and ``functions`` (cast,
get_item, reshape, sum, swapaxes). The gradients are built from this node and differentiable
functions, so double backprop works.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.functions.array.get_item import get_item as _get_item
from chainer_compat.functions.array.reshape import reshape as _reshape
from chainer_compat.functions.array.swapaxes import swapaxes as _swapaxes
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import add_at, type_check
from chainer_compat.utils.sparse import CooMatrix


class CooMatMul(FunctionNode):
    """``op(A) @ op(B)`` (transposed when ``transc``) for a sparse ``A`` given by its entries
    (the first input) and positions, and a dense ``B`` (the second). Use
    :func:`sparse_matmul`.

    Args:
        sp_row: Row indices of the entries, ``(nnz,)`` or ``(batch, nnz)``; negative marks
            padding.
        sp_col: Column indices, of ``sp_row``'s shape.
        sp_shape: ``(rows, columns)`` of ``A``.
        sp_order: ``'C'``, ``'F'`` or ``'other'`` (a hint, unused here).
        transa: Transpose ``A``.
        transb: Transpose ``B``.
        transc: Transpose the product.
        dtype: Output dtype; None promotes the two inputs' dtypes.

    Raises:
        ValueError: On index arrays of different or unsupported ranks, or a shape that is not
            a pair (Chainer's messages).
    """

    def __init__(self, sp_row: Any, sp_col: Any, sp_shape: Any, sp_order: str = "other",
                 transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: Any = None) -> None:
        # compat: Chainer's type and wording.
        if sp_row.ndim != sp_col.ndim:
            raise ValueError("ndim of sp_row and sp_col must be the same.")
        if sp_row.ndim not in (1, 2):
            raise ValueError("ndim of sp_row and sp_col must be one or two.")
        for axis in range(sp_row.ndim):
            if sp_row.shape[axis] != sp_col.shape[axis]:
                raise ValueError(
                    f"shape of sp_row and sp_col must be the same, got {sp_row.shape} and "
                    f"{sp_col.shape}")
        if len(sp_shape) != 2:
            raise ValueError("len(sp_shape) must be two.")
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = tuple(sp_shape)
        self.sp_order = sp_order
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("sp", "dn"))
        sp_type, dn_type = in_types
        sp_inner = self.sp_shape[0] if self.transa else self.sp_shape[1]
        dn_inner_axis = -1 if self.transb else -2
        type_check.expect(
            sp_type.dtype.kind == "f",
            dn_type.dtype.kind == "f",
            dn_type.ndim >= 2,
            dn_type.ndim <= 3,
            sp_type.ndim == dn_type.ndim - 1,
            sp_type.shape[-1] == self.sp_row.shape[-1],
            dn_type.shape[dn_inner_axis] == sp_inner,
        )
        if type_check.eval(dn_type.ndim) == 3:
            type_check.expect(
                sp_type.shape[0] == self.sp_row.shape[0],
                dn_type.shape[0] == self.sp_row.shape[0],
            )

    def _entries(self) -> tuple[Any, Any, int, int]:
        """Rows and columns of ``op(A)``'s entries, and its shape."""
        if self.transa:
            return self.sp_col, self.sp_row, self.sp_shape[1], self.sp_shape[0]
        return self.sp_row, self.sp_col, self.sp_shape[0], self.sp_shape[1]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        data, dense = inputs
        xp = backend.get_array_module(data, dense)
        dtype = numpy.result_type(data.dtype, dense.dtype) if self.dtype is None else self.dtype
        rows, cols, height, _ = self._entries()
        right = dense.swapaxes(-1, -2) if self.transb else dense
        valid = (rows >= 0) & (cols >= 0)
        weights = (data * valid).astype(dtype, copy=False)
        safe_rows, safe_cols = xp.where(valid, rows, 0), xp.where(valid, cols, 0)
        if right.ndim == 2:
            product = xp.zeros((height, right.shape[1]), dtype=dtype)
            add_at(product, safe_rows, weights[:, None] * right[safe_cols])
        else:
            batch = right.shape[0]
            offsets = xp.arange(batch)[:, None]
            product = xp.zeros((batch * height, right.shape[2]), dtype=dtype)
            gathered = right.reshape(-1, right.shape[2])[
                (offsets * right.shape[1] + safe_cols).ravel()]
            add_at(product, (offsets * height + safe_rows).ravel(),
                          weights.reshape(-1, 1) * gathered)
            product = product.reshape(batch, height, -1)
        if self.transc:
            product = product.swapaxes(-1, -2)
        return utils.force_array(product, dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        data, dense = self.get_retained_inputs()
        g_product, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(self._entry_gradient(data, dense, g_product))
        if 1 in indexes:
            # d(op(B)) = op(A)^T @ G, transposed back when B was.
            node = CooMatMul(self.sp_row, self.sp_col, self.sp_shape, self.sp_order,
                             not self.transa, self.transc, self.transb, dtype=dense.dtype)
            grads.append(node.apply((data, g_product))[0])
        return tuple(grads)

    def _entry_gradient(self, data: Any, dense: Any, g_product: Any) -> Any:
        """``g_data[k] = G[row_k] . op(B)[col_k]`` (zero for padding), differentiably."""
        xp = backend.get_array_module(data.array)
        rows, cols, height, width = self._entries()
        g = _swapaxes(g_product, -1, -2) if self.transc else g_product
        right = _swapaxes(dense, -1, -2) if self.transb else dense
        # Mixed dtypes (float32 entries, float64 B) multiply in the wider one.
        wide = numpy.result_type(g.dtype, right.dtype)
        g = g if g.dtype == wide else _cast(g, wide)
        right = right if right.dtype == wide else _cast(right, wide)
        valid = (rows >= 0) & (cols >= 0)
        safe_rows, safe_cols = xp.where(valid, rows, 0), xp.where(valid, cols, 0)
        if right.ndim == 3:
            offsets = xp.arange(right.shape[0])[:, None]
            safe_rows = (offsets * height + safe_rows).ravel()
            safe_cols = (offsets * width + safe_cols).ravel()
            g = _reshape(g, (-1, g.shape[-1]))
            right = _reshape(right, (-1, right.shape[-1]))
        picked = _sum(_get_item(g, safe_rows) * _get_item(right, safe_cols), axis=1)
        picked = _reshape(picked, data.shape)
        # The entries' gradient has their dtype, as Chainer's CooMatMulGradSP gives it, also
        # when the product was computed in a wider one (float32 entries, float64 B).
        if picked.dtype != data.dtype:
            picked = _cast(picked, data.dtype)
        return picked * valid.astype(data.dtype)


def sparse_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False
                  ) -> variable.Variable:
    """Product of a sparse and a dense matrix (or batches of them): ``op(a) @ op(b)``, where
    exactly one of ``a`` and ``b`` is a :class:`~chainer_compat.utils.CooMatrix`.

    Args:
        a: A CooMatrix, or a dense float array or Variable of shape ``(m, k)`` or
            ``(batch, m, k)``.
        b: A dense operand if ``a`` is sparse, else a CooMatrix.
        transa: Transpose ``a`` (each matrix of a batch).
        transb: Transpose ``b``.

    Returns:
        The dense product as a Variable. Gradients reach the dense operand and, when its
        ``requires_grad`` is set, the sparse matrix's ``data``.

    Raises:
        ValueError: If neither or both operands are sparse.
        chainer_compat.utils.type_check.InvalidType: On mismatched shapes or non-float data.
    """
    dense_types = (variable.Variable, numpy.ndarray)
    a_dense = isinstance(a, dense_types) or backend.is_cupy_array(a)
    b_dense = isinstance(b, dense_types) or backend.is_cupy_array(b)
    if isinstance(a, CooMatrix) and b_dense:
        node = CooMatMul(a.row, a.col, a.shape, a.order, transa=transa, transb=transb,
                         transc=False)
        return node.apply((a.data, b))[0]
    if a_dense and isinstance(b, CooMatrix):
        # (op(a) @ op(b))^T = op(b)^T @ op(a)^T.
        node = CooMatMul(b.row, b.col, b.shape, b.order, transa=not transb,
                         transb=not transa, transc=True)
        return node.apply((b.data, a))[0]
    # compat: Chainer's wording.
    raise ValueError(
        "This combination of type of inputs is not supported.\n"
        f"    a: {type(a)}\n    b: {type(b)}\n")
