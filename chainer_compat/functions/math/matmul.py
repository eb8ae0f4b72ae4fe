"""``matmul``: differentiable matrix products with NumPy's broadcasting rules."""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _swap_last(x: Any) -> Any:
    from chainer_compat.functions.array.transpose import transpose

    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return transpose(x, tuple(axes))


class MatMul(FunctionNode):
    """``a @ b`` (optionally transposing the last two axes of either first)."""

    def __init__(self, transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: Any = None) -> None:
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(a_type.dtype.kind == "f", b_type.dtype.kind == "f",
                          a_type.ndim >= 1, b_type.ndim >= 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        if self.transa and a.ndim >= 2:
            a = a.swapaxes(-1, -2)
        if self.transb and b.ndim >= 2:
            b = b.swapaxes(-1, -2)
        xp = backend.get_array_module(a)
        y = xp.matmul(a, b)
        if self.transc and y.ndim >= 2:
            y = y.swapaxes(-1, -2)
        if self.dtype is not None:
            y = y.astype(self.dtype, copy=False)
        return utils.force_array(y),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.array.reshape import reshape
        from chainer_compat.functions.math.sum import sum_to

        a_var, b_var = self.get_retained_inputs()
        gy, = grad_outputs
        a = _swap_last(a_var) if self.transa and a_var.ndim >= 2 else a_var
        b = _swap_last(b_var) if self.transb and b_var.ndim >= 2 else b_var
        if self.transc and gy.ndim >= 2:
            gy = _swap_last(gy)
        # Promote vectors to matrices as matmul does, then undo it on the gradients.
        a2 = reshape(a, (1,) + a.shape) if a.ndim == 1 else a
        b2 = reshape(b, b.shape + (1,)) if b.ndim == 1 else b
        batch = _broadcast_batch(a2.shape[:-2], b2.shape[:-2])
        gy2 = reshape(gy, batch + (a2.shape[-2], b2.shape[-1]))
        grads: list[Any] = []
        if 0 in indexes:
            ga = matmul(gy2, b2, transb=True)
            ga = sum_to(ga, a2.shape)
            ga = reshape(ga, a.shape)
            if self.transa and a_var.ndim >= 2:
                ga = _swap_last(ga)
            grads.append(ga)
        if 1 in indexes:
            gb = matmul(a2, gy2, transa=True)
            gb = sum_to(gb, b2.shape)
            gb = reshape(gb, b.shape)
            if self.transb and b_var.ndim >= 2:
                gb = _swap_last(gb)
            grads.append(gb)
        return tuple(grads)


def _broadcast_batch(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    import numpy

    return tuple(numpy.broadcast_shapes(a, b))


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> variable.Variable:
    """Matrix product of ``a`` and ``b`` with NumPy's matmul broadcasting.

    Args:
        a: First operand (ndim >= 1).
        b: Second operand (ndim >= 1).
        transa: Transpose the last two axes of ``a`` first.
        transb: Transpose the last two axes of ``b`` first.
    """
    y, = MatMul(transa=transa, transb=transb).apply((a, b))
    return y
