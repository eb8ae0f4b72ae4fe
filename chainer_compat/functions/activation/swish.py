"""``swish``: ``x * sigmoid(beta * x)`` with a parameter ``beta`` shared across the batch.

Layer 5: imports backend, utils, function_node and the ``sigmoid``/``sum``/``reshape``/
``broadcast_to``/``cast`` functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import extended_shape, reduction_axes
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.cast import cast
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math._basic_math_grads import sum_of_terms
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


def _logistic(x: Any) -> Any:
    xp = backend.get_array_module(x)
    half = x.dtype.type(0.5)
    return xp.tanh(x * half) * half + half


class Swish(FunctionNode):
    """Swish of ``x`` with ``beta`` lined up with axes 1.. of ``x``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "beta"))
        x_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            beta_type.dtype == x_type.dtype,
            beta_type.ndim <= x_type.ndim - 1,
        )
        type_check.expect(
            beta_type.shape == x_type.shape[1:1 + type_check.eval(beta_type.ndim)])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, beta = inputs
        beta = beta.reshape(extended_shape(beta.shape, x.ndim))
        return utils.force_array(x * _logistic(beta * x), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, beta = self.get_retained_inputs()
        shape = extended_shape(beta.shape, x.ndim)
        axes = reduction_axes(beta.ndim, x.ndim)
        return SwishGrad(shape, axes).apply((x, beta, grad_outputs[0]))


class SwishGrad(FunctionNode):
    """Gradients of Swish with respect to ``x`` and ``beta``, from ``(x, beta, gy)``."""

    def __init__(self, extended_shape: tuple[int, ...], reduction_axes: tuple[int, ...]) -> None:
        self.extended_shape = extended_shape
        self.reduction_axes = reduction_axes

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, beta, gy = inputs
        beta = beta.reshape(self.extended_shape)
        one = x.dtype.type(1)
        slope = _logistic(beta * x)
        y = x * slope
        beta_y = beta * y
        gx = gy * (beta_y + slope * (one - beta_y))
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        gbeta = sum_in_numpy1_order(gy * y * (x - y), axis=self.reduction_axes)
        return utils.force_array(gx, x.dtype), utils.force_array(gbeta, x.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # NOTE [Swish double backward]: with s = sigmoid(beta x), y = x s and by = beta y,
        # SwishGrad computes gx = gy (by + s (1 - by)) and gbeta = sum(gy y (x - y)). Their
        # derivatives are written in terms of y and by, as Chainer writes them, and every
        # intermediate is built in Chainer's order so the rounding and the nodes a
        # FunctionHook sees are Chainer's. compat: Chainer needs both ggx and ggbeta; a
        # missing one here just drops its terms.
        x, beta, gy = self.get_retained_inputs()
        ggx, ggbeta = grad_outputs
        beta = broadcast_to(reshape(beta, self.extended_shape), gy.shape)
        if ggbeta is not None:
            ggbeta = broadcast_to(reshape(ggbeta, self.extended_shape), gy.shape)

        s = sigmoid(beta * x)
        y = x * s
        by = beta * y
        one_minus_s = 1 - s
        s_one_minus_by = s * (1 - by)
        y_x_minus_y = y * (x - y)
        x_minus_2y = x - 2 * y
        # d(gx)/dbeta / gy, which is also d(gbeta)/dx / gy before the sum.
        common = gy * y * (2 + beta * x_minus_2y) * one_minus_s

        grads: list[Any] = []
        if 0 in indexes:
            gx = sum_of_terms(
                None if ggx is None
                else ggx * gy * beta * one_minus_s * (by + 2 * s_one_minus_by),
                None if ggbeta is None else ggbeta * common)
            grads.append(_cast(gx, x.dtype))
        if 1 in indexes:
            gbeta = sum_of_terms(
                None if ggx is None else ggx * common,
                None if ggbeta is None else ggbeta * gy * y_x_minus_y * x_minus_2y)
            if gbeta is not None:
                gbeta = _sum(gbeta, axis=self.reduction_axes)
            grads.append(_cast(gbeta, beta.dtype))
        if 2 in indexes:
            ggy = sum_of_terms(
                None if ggx is None else ggx * (by + s_one_minus_by),
                None if ggbeta is None else ggbeta * y_x_minus_y)
            grads.append(_cast(ggy, gy.dtype))
        return tuple(grads)


def _cast(grad: Any, dtype: Any) -> Any:
    # compat: Chainer casts each second-order gradient, a Cast node when backprop is on.
    return None if grad is None else cast(grad, dtype)


def swish(x: Any, beta: Any) -> variable.Variable:
    """Swish activation: ``x * sigmoid(beta * x)``.

    ``beta`` of shape ``(s_1, ..., s_M)`` is reshaped to ``(1, s_1, ..., s_M, 1, ..., 1)`` and
    multiplied with ``x`` of shape ``(B, s_1, ..., s_N)`` elementwise. Use
    ``chainer.links.Swish`` to train ``beta``.

    Args:
        x: Input Variable or array of floats; axis 0 is the batch.
        beta: Parameter Variable or array with ``x``'s dtype and shape ``x.shape[1:1 + M]``.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = Swish().apply((x, beta))
    return y
