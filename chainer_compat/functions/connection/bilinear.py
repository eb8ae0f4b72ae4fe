"""``bilinear``: the bilinear map of Neural Tensor Networks, ``e1^T W e2 (+ V1 e1 + V2 e2 + b)``.

Layer 5: imports backend, utils, variable, function_node, type_check, and ``functions.math``
and ``functions.array`` (on use). The gradient is written with differentiable functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _as_matrix(x: Any) -> Any:
    """Flattens every axis after the first (arrays and Variables)."""
    if x.ndim == 2:
        return x
    return x.reshape(len(x), -1)


class BilinearFunction(FunctionNode):
    """``y_il = sum_jk e1_ij e2_ik W_jkl (+ e1 V1 + e2 V2 + b)``. Use :func:`bilinear`."""

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in != 3 and n_in != 6:
            raise type_check.InvalidType(
                f"{in_types.size() == 3} or {in_types.size() == 6}",
                f"{in_types.size()} == {n_in}")
        e1_type, e2_type, w_type = in_types[:3]
        type_check._argname((e1_type, e2_type, w_type), ("e1", "e2", "W"))
        type_check.expect(
            e1_type.dtype.kind == "f",
            e1_type.ndim >= 2,
            e2_type.dtype == e1_type.dtype,
            e2_type.ndim >= 2,
            e1_type.shape[0] == e2_type.shape[0],
            w_type.dtype == e1_type.dtype,
            w_type.ndim == 3,
            type_check.prod(e1_type.shape[1:]) == w_type.shape[0],
            type_check.prod(e2_type.shape[1:]) == w_type.shape[1],
        )
        if n_in == 6:
            out_size = w_type.shape[2]
            v1_type, v2_type, b_type = in_types[3:]
            type_check._argname((v1_type, v2_type, b_type), ("V1", "V2", "b"))
            type_check.expect(
                v1_type.dtype == e1_type.dtype,
                v1_type.ndim == 2,
                v1_type.shape[0] == w_type.shape[0],
                v1_type.shape[1] == out_size,
                v2_type.dtype == e1_type.dtype,
                v2_type.ndim == 2,
                v2_type.shape[0] == w_type.shape[1],
                v2_type.shape[1] == out_size,
                b_type.dtype == e1_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == out_size,
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        e1 = _as_matrix(inputs[0])
        e2 = _as_matrix(inputs[1])
        w = inputs[2]
        xp = backend.get_array_module(e1)
        # (e1 outer e2) flattened, times W flattened over its first two axes: one matmul.
        outer = (e1[:, :, None] * e2[:, None, :]).reshape(len(e1), -1)
        y = outer.dot(w.reshape(-1, w.shape[2]))
        if len(inputs) == 6:
            v1, v2, b = inputs[3:]
            y += e1.dot(v1)
            y += e2.dot(v2)
            y += b
        return utils.force_array(xp.asarray(y), e1.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.array.reshape import reshape
        from chainer_compat.functions.math.matmul import matmul
        from chainer_compat.functions.math.sum import sum as _sum

        inputs = self.get_retained_inputs()
        e1_in, e2_in, w = inputs[:3]
        e1 = _as_matrix(e1_in)
        e2 = _as_matrix(e2_in)
        gy, = grad_outputs
        count, j_size = e1.shape
        k_size = e2.shape[1]
        l_size = w.shape[2]
        shape_ijk = (count, j_size, k_size)
        grads: dict[int, Any] = {}
        if 0 in indexes or 1 in indexes:
            # gy W^T over l: shape (i, j, k).
            gy_w = reshape(matmul(gy, reshape(w, (j_size * k_size, l_size)), transb=True),
                           shape_ijk)
            if 0 in indexes:
                e2_b = broadcast_to(reshape(e2, (count, 1, k_size)), shape_ijk)
                ge1 = _sum(gy_w * e2_b, axis=2)
                if len(inputs) == 6:
                    ge1 = ge1 + matmul(gy, inputs[3], transb=True)
                grads[0] = reshape(ge1, e1_in.shape)
            if 1 in indexes:
                e1_b = broadcast_to(reshape(e1, (count, j_size, 1)), shape_ijk)
                ge2 = _sum(gy_w * e1_b, axis=1)
                if len(inputs) == 6:
                    ge2 = ge2 + matmul(gy, inputs[4], transb=True)
                grads[1] = reshape(ge2, e2_in.shape)
        if 2 in indexes:
            outer = (broadcast_to(reshape(e1, (count, j_size, 1)), shape_ijk)
                     * broadcast_to(reshape(e2, (count, 1, k_size)), shape_ijk))
            gw = matmul(reshape(outer, (count, j_size * k_size)), gy, transa=True)
            grads[2] = reshape(gw, (j_size, k_size, l_size))
        if 3 in indexes:
            grads[3] = matmul(e1, gy, transa=True)
        if 4 in indexes:
            grads[4] = matmul(e2, gy, transa=True)
        if 5 in indexes:
            grads[5] = _sum(gy, axis=0)
        return tuple([grads[i] for i in indexes])


def bilinear(e1: Any, e2: Any, W: Any, V1: Any = None, V2: Any = None,
             b: Any = None) -> variable.Variable:
    """Bilinear function ``y_il = sum_jk e1_ij e2_ik W_jkl + sum_j e1_ij V1_jl
    + sum_k e2_ik V2_kl + b_l`` (the linear terms only when ``V1``, ``V2`` and ``b`` are given).

    Args:
        e1: Left input of shape ``(I, ...)``; axes after the first are flattened to ``J``.
        e2: Right input of shape ``(I, ...)``; axes after the first are flattened to ``K``.
        W: Quadratic weight of shape ``(J, K, L)``.
        V1: Left linear weight of shape ``(J, L)``.
        V2: Right linear weight of shape ``(K, L)``.
        b: Bias of shape ``(L,)``.

    Returns:
        A Variable of shape ``(I, L)``.

    Raises:
        ValueError: If only some of ``V1``, ``V2`` and ``b`` are given.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.

    Compat:
        Any float dtype is accepted, as long as all inputs share it (Chainer requires float32).
    """
    missing = [V1 is None, V2 is None, b is None]
    if any(missing):
        if not all(missing):
            raise ValueError(
                "V1, V2 and b of bilinear must be given all together or not at all, got "
                + ", ".join(name for name, absent in zip(("V1", "V2", "b"), missing)
                            if not absent))
        return BilinearFunction().apply((e1, e2, W))[0]
    return BilinearFunction().apply((e1, e2, W, V1, V2, b))[0]
