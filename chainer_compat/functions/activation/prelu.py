"""``prelu``: the parametric ReLU, ``x`` where ``x >= 0`` and ``W * x`` elsewhere.

Layer 5: imports backend, utils, function_node and the ``sum``/``reshape``/``broadcast_to``
functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import (
    extended_shape,
    in_c_order,
    reduction_axes,
)
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import _select, type_check
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
        slopes = w.reshape(extended_shape(w.shape, x.ndim))
        return in_c_order(utils.force_array(_select.where(x >= 0, x, x * slopes), x.dtype)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, w = self.get_retained_inputs()
        return PReLUFunctionGrad(
            x.array, reduction_axes(w.ndim, x.ndim), extended_shape(w.shape, x.ndim),
        ).apply((x, w, grad_outputs[0]))


class PReLUFunctionGrad(FunctionNode):
    """Gradients of PReLU with respect to ``x`` and ``W``, from ``(x, W, gy)``.

    The side of each entry is read from ``cond`` (the forward's ``x``), not from the input, so
    the node also serves its own double backward (NOTE [PReLU double backward]). With
    ``reduce_axes`` ``None`` the ``W`` gradient is left unsummed, of ``x``'s shape.
    """

    def __init__(self, cond: Any, reduce_axes: tuple[int, ...] | None,
                 extended_shape: tuple[int, ...]) -> None:
        self.cond = cond
        self.reduce_axes = reduce_axes
        self.extended_shape = extended_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, w, gy = inputs
        slopes = w.reshape(self.extended_shape)
        # compat: Chainer's mask, cond >= 0, so a NaN input takes the slope's side as there.
        kept = self.cond >= 0
        gx = _select.where(kept, gy, gy * slopes)
        gw = _select.select(~kept, x * gy)
        if self.reduce_axes is not None:
            # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
            gw = sum_in_numpy1_order(gw, axis=self.reduce_axes)
        return in_c_order(utils.force_array(gx, x.dtype)), utils.force_array(gw, x.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # NOTE [PReLU double backward]: gx = where(m, gy, gy W) and gW = sum(where(m, 0, x gy))
        # with the constant mask m = cond >= 0 are linear in gy and in (W, x) separately, so
        # the ggx-parts of their derivatives are this node again applied to (gy, W, ggx)
        # (unsummed), as in Chainer; node order and rounding follow it. compat: Chainer needs
        # both ggx and ggW; a missing one here just drops its terms.
        x, w, gy = self.get_retained_inputs()
        ggx, ggw = grad_outputs
        if ggw is not None:
            ggw = broadcast_to(reshape(ggw, self.extended_shape), x.shape)
            ggw = ggw * (self.cond < 0)
        ggx_gy = ggx_w = None
        if ggx is not None:
            ggx_gy, ggx_w = PReLUFunctionGrad(
                self.cond, None, self.extended_shape).apply((gy, w, ggx))

        grads: list[Any] = []
        if 0 in indexes:
            grads.append(None if ggw is None else gy * ggw)
        if 1 in indexes:
            grads.append(None if ggx_w is None else _sum(ggx_w, axis=self.reduce_axes))
        if 2 in indexes:
            ggy = None if ggw is None else x * ggw
            if ggx_gy is not None:
                ggy = ggx_gy if ggy is None else ggy + ggx_gy
            grads.append(ggy)
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
