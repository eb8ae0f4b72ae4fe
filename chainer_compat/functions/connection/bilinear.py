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
        from chainer_compat.functions.math._basic_math_grads import sum_of_terms
        from chainer_compat.functions.math.matmul import matmul

        # NOTE [Bilinear double backward]: every gradient is bilinear in its inputs, so each
        # derivative is one of the three contractions below with one input swapped for an
        # incoming gradient. compat: they are built as Chainer builds them, from batched
        # outer products and matrix products (not with this node's einsums), all nine before
        # any is summed and in Chainer's order, so the rounding and the nodes a FunctionHook
        # sees are Chainer's. Chainer needs every incoming gradient; a missing one here just
        # drops its terms.
        inputs = self.get_retained_inputs()
        e1 = _as_matrix(inputs[0])
        e2 = _as_matrix(inputs[1])
        w, gy = inputs[2], inputs[-1]
        gge1, gge2, ggw = (None if g is None else _as_matrix(g) if i < 2 else g
                           for i, g in enumerate(grad_outputs[:3]))
        dge1_de2 = dge1_dw = dge1_dgy = None
        if gge1 is not None:
            dge1_de2 = _ij_il_jkl_to_ik(gge1, gy, w)
            dge1_dw = _ij_ik_il_to_jkl(gge1, e2, gy)
            dge1_dgy = _ij_ik_jkl_to_il(gge1, e2, w)
        dge2_de1 = dge2_dw = dge2_dgy = None
        if gge2 is not None:
            dge2_de1 = _ik_il_jkl_to_ij(gge2, gy, w)
            dge2_dw = _ij_ik_il_to_jkl(e1, gge2, gy)
            dge2_dgy = _ij_ik_jkl_to_il(e1, gge2, w)
        dgw_de1 = dgw_de2 = dgw_dgy = None
        if ggw is not None:
            dgw_de1 = _ik_il_jkl_to_ij(e2, gy, ggw)
            dgw_de2 = _ij_il_jkl_to_ik(e1, gy, ggw)
            dgw_dgy = _ij_ik_jkl_to_il(e1, e2, ggw)
        ge1 = sum_of_terms(dgw_de1, dge2_de1)
        ge2 = sum_of_terms(dgw_de2, dge1_de2)
        gw = sum_of_terms(dge1_dw, dge2_dw)
        ggy = sum_of_terms(sum_of_terms(dgw_dgy, dge1_dgy), dge2_dgy)
        grads = [ge1, ge2, gw]
        if len(inputs) == 6:
            v1, v2 = inputs[3], inputs[4]
            ggv1, ggv2, ggb = grad_outputs[3:]
            grads.append(None if gge1 is None else matmul(gge1, gy, transa=True))
            grads.append(None if gge2 is None else matmul(gge2, gy, transa=True))
            if ggv1 is not None:
                ge1 = sum_of_terms(ge1, matmul(gy, ggv1, transb=True))
            if ggv2 is not None:
                ge2 = sum_of_terms(ge2, matmul(gy, ggv2, transb=True))
            for left, right in ((gge1, v1), (gge2, v2), (e1, ggv1), (e2, ggv2)):
                if left is not None and right is not None:
                    ggy = sum_of_terms(ggy, matmul(left, right))
            if ggb is not None:
                ggy = sum_of_terms(ggy, broadcast_to(ggb, gy.shape))
        grads[0] = None if ge1 is None else ge1.reshape(inputs[0].shape)
        grads[1] = None if ge2 is None else ge2.reshape(inputs[1].shape)
        grads.append(ggy)
        return tuple(grads[i] for i in indexes)


# The contractions of the double backward, named by their einsum subscripts (i the batch, j
# and k the axes of e1 and e2, l the output's), each computed as Chainer computes it: a batched
# outer product of the first two operands, flattened, then one matrix product.
def _ij_ik_il_to_jkl(a: Any, b: Any, c: Any) -> Any:
    from chainer_compat.functions.math.matmul import matmul

    outer = matmul(a[:, :, None], b[:, None, :])
    return matmul(_as_matrix(outer).T, c).reshape(a.shape[1], b.shape[1], c.shape[1])


def _ij_ik_jkl_to_il(a: Any, b: Any, c: Any) -> Any:
    from chainer_compat.functions.math.matmul import matmul

    outer = matmul(a[:, :, None], b[:, None, :])
    c = c.reshape(-1, c.shape[-1])  # before flattening outer, in Chainer's order of nodes
    return matmul(_as_matrix(outer), c)


def _ij_il_jkl_to_ik(a: Any, b: Any, c: Any) -> Any:
    from chainer_compat.functions.array.swapaxes import swapaxes

    return _ij_ik_jkl_to_il(a, b, swapaxes(c, 1, 2))


def _ik_il_jkl_to_ij(a: Any, b: Any, c: Any) -> Any:
    from chainer_compat.functions.array.rollaxis import rollaxis

    return _ij_ik_jkl_to_il(a, b, rollaxis(c, 0, c.ndim))


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
            # compat: Chainer's sentence first, which users may match on.
            raise ValueError(
                "All coefficients and bias for bilinear() must be None, if at least one of "
                "them is None.\n"
                "V1, V2 and b of bilinear must be given all together or not at all, got "
                + ", ".join(name for name, absent in zip(("V1", "V2", "b"), missing)
                            if not absent))
        return BilinearFunction().apply((e1, e2, W))[0]
    return BilinearFunction().apply((e1, e2, W, V1, V2, b))[0]
