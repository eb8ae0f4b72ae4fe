"""``bilinear``: the bilinear map of Neural Tensor Networks, ``e1^T W e2 (+ V1 e1 + V2 e2 + b)``.

Layer 5: imports backend, utils, variable, function_node, type_check, and ``functions.math``
and ``functions.array`` (on use). The gradient is a node whose own gradient is written with it
and ``bilinear``, so it is differentiable to any order.
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
        inputs = self.get_retained_inputs()
        gy, = grad_outputs
        # The bias is not needed: its gradient is gy summed over the batch.
        grads = BilinearFunctionGrad().apply((*inputs[:5], gy))
        return tuple(grads[i] for i in indexes)


# Chainer's weight gradient is one N-d dot per entry of W, up to 5 times slower than one matrix
# product at larger sizes; above this many multiply-adds we use the matrix product, which
# rounds differently (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
_CHAINER_DOT_LIMIT = 2 ** 17


class BilinearFunctionGrad(FunctionNode):
    """The gradients of :class:`BilinearFunction`; differentiable again.

    Inputs are ``(e1, e2, W, gy)`` or ``(e1, e2, W, V1, V2, gy)``; outputs the gradients for
    ``e1``, ``e2`` and ``W``, then for ``V1``, ``V2`` and ``b`` when the linear terms are given.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        e1 = _as_matrix(inputs[0])
        e2 = _as_matrix(inputs[1])
        w, gy = inputs[2], inputs[-1]
        xp = backend.get_array_module(e1)
        # compat: Chainer's contractions (an einsum outer product dotted with gy, and einsums
        # with gy W), for its rounding (NOTE [Chainer's rounding] in
        # functions/loss/softmax_cross_entropy.py). Its W gradient is one BLAS dot product
        # per entry of W: up to _CHAINER_DOT_LIMIT multiply-adds this whole backward was as
        # fast as a matrix product's, past it up to 5 times slower, so there the W gradient
        # is one matrix product instead, which rounds differently.
        outer = xp.einsum("ij,ik->jki", e1, e2)
        if outer.size * gy.shape[1] <= _CHAINER_DOT_LIMIT:
            gw = outer.dot(gy)
        else:
            gw = outer.reshape(-1, len(e1)).dot(gy).reshape(outer.shape[:2] + gy.shape[1:])
        gy_w = xp.tensordot(gy, w, axes=(1, 2))
        ge1 = xp.einsum("ik,ijk->ij", e2, gy_w)
        ge2 = xp.einsum("ij,ijk->ik", e1, gy_w)
        grads = [ge1, ge2, gw]
        if len(inputs) == 6:
            v1, v2 = inputs[3], inputs[4]
            ge1 += gy.dot(v1.T)
            ge2 += gy.dot(v2.T)
            grads += [e1.T.dot(gy), e2.T.dot(gy), gy.sum(0)]
        grads[0] = ge1.reshape(inputs[0].shape)
        grads[1] = ge2.reshape(inputs[1].shape)
        return tuple(utils.force_array(xp.asarray(g), e1.dtype) for g in grads)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.array.reshape import reshape
        from chainer_compat.functions.math.matmul import matmul

        inputs = self.get_retained_inputs()
        e1_in, e2_in, w = inputs[:3]
        gy = inputs[-1]
        e1 = _as_matrix(e1_in)
        e2 = _as_matrix(e2_in)
        gge1, gge2, ggw = (None if g is None else _as_matrix(g) if i < 2 else g
                           for i, g in enumerate(grad_outputs[:3]))
        linear = len(inputs) == 6
        # Each gradient is bilinear in its inputs, so its derivatives are the same gradients
        # (or the function itself) with one input swapped for an incoming gradient.
        terms: dict[int, list[Any]] = {i: [] for i in range(len(inputs))}
        if gge1 is not None:
            ge2_of, gw_of = _gradients(gge1, e2, w, gy)[1:3]
            terms[1].append(ge2_of)
            terms[2].append(gw_of)
            terms[len(inputs) - 1].append(bilinear(gge1, e2, w))
        if gge2 is not None:
            ge1_of, _, gw_of = _gradients(e1, gge2, w, gy)
            terms[0].append(ge1_of)
            terms[2].append(gw_of)
            terms[len(inputs) - 1].append(bilinear(e1, gge2, w))
        if ggw is not None:
            ge1_of, ge2_of, _ = _gradients(e1, e2, ggw, gy)
            terms[0].append(ge1_of)
            terms[1].append(ge2_of)
            terms[len(inputs) - 1].append(bilinear(e1, e2, ggw))
        if linear:
            v1, v2 = inputs[3], inputs[4]
            ggv1, ggv2, ggb = grad_outputs[3:]
            if gge1 is not None:
                terms[3].append(matmul(gge1, gy, transa=True))
                terms[5].append(matmul(gge1, v1))
            if gge2 is not None:
                terms[4].append(matmul(gge2, gy, transa=True))
                terms[5].append(matmul(gge2, v2))
            if ggv1 is not None:
                terms[0].append(matmul(gy, ggv1, transb=True))
                terms[5].append(matmul(e1, ggv1))
            if ggv2 is not None:
                terms[1].append(matmul(gy, ggv2, transb=True))
                terms[5].append(matmul(e2, ggv2))
            if ggb is not None:
                terms[5].append(broadcast_to(ggb, gy.shape))
        grads: list[Any] = []
        for i in indexes:
            if not terms[i]:
                grads.append(None)
                continue
            total = terms[i][0]
            for term in terms[i][1:]:
                total = total + term
            grads.append(reshape(total, inputs[i].shape) if i < 2 else total)
        return tuple(grads)


def _gradients(e1: Any, e2: Any, w: Any, gy: Any) -> tuple[Any, ...]:
    """The quadratic term's gradients ``(ge1, ge2, gW)`` for ``(e1, e2, W)`` and ``gy``."""
    return BilinearFunctionGrad().apply((e1, e2, w, gy))


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
