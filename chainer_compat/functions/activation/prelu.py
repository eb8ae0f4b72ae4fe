"""``prelu``: the parametric ReLU, ``x`` where ``x >= 0`` and ``W * x`` elsewhere.

Layer 5: imports backend, utils, function_node and the ``sum``/``reshape``/``broadcast_to``
functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import (
    extended_shape,
    in_c_order,
    reduction_axes,
)
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class PReLUFunction(FunctionNode):
    """Parametric ReLU of ``x`` with slopes ``W`` lined up with axes 1.. of ``x``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W"))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype == x_type.dtype,
            x_type.ndim >= w_type.ndim + 1,
        )
        type_check.expect(x_type.shape[1:1 + type_check.eval(w_type.ndim)] == w_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, w = inputs
        xp = backend.get_array_module(x)
        slopes = w.reshape(extended_shape(w.shape, x.ndim))
        return in_c_order(utils.force_array(xp.where(x >= 0, x, x * slopes), x.dtype)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, w = self.get_retained_inputs()
        return PReLUFunctionGrad().apply((x, w, grad_outputs[0]))


class PReLUFunctionGrad(FunctionNode):
    """Gradients of PReLU with respect to ``x`` and ``W``, from ``(x, W, gy)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, w, gy = inputs
        xp = backend.get_array_module(x)
        slopes = w.reshape(extended_shape(w.shape, x.ndim))
        # compat: Chainer's mask, x >= 0, so a NaN input takes the slope's side as there.
        kept = x >= 0
        gx = xp.where(kept, gy, gy * slopes)
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        gw = sum_in_numpy1_order(xp.where(kept, x.dtype.type(0), x * gy),
                                 axis=reduction_axes(w.ndim, x.ndim))
        return in_c_order(utils.force_array(gx, x.dtype)), utils.force_array(gw, x.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # gx = gy * (m + (1 - m) W) and gW = sum((1 - m) x gy) with the constant mask m = x >= 0.
        x, w, gy = self.get_retained_inputs()
        ggx, ggw = grad_outputs
        negative = x.array < 0
        shape = extended_shape(w.shape, x.ndim)
        slopes = broadcast_to(reshape(w, shape), x.shape)
        ggw_full = None if ggw is None else broadcast_to(reshape(ggw, shape), x.shape)
        grads: list[Any] = []
        for index in indexes:
            grad = None
            if index == 0:
                if ggw_full is not None:
                    grad = ggw_full * gy * negative
            elif index == 1:
                if ggx is not None:
                    grad = _sum(ggx * gy * negative, axis=reduction_axes(w.ndim, x.ndim))
            else:
                if ggx is not None:
                    grad = ggx * (slopes * negative + (~negative))
                if ggw_full is not None:
                    term = ggw_full * x * negative
                    grad = term if grad is None else grad + term
            grads.append(grad)
        return tuple(grads)


def prelu(x: Any, W: Any) -> variable.Variable:
    """Parametric ReLU: ``x`` where ``x >= 0`` else ``W * x``.

    ``W`` of shape ``(s_1, ..., s_M)`` is lined up with axes 1.. of ``x`` of shape
    ``(B, s_1, ..., s_M, ...)``, so a slope is shared across the batch and trailing axes.

    Args:
        x: Input Variable or array of floats; axis 0 is the batch.
        W: Slope Variable or array with ``x``'s dtype.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = PReLUFunction().apply((x, W))
    return y
