"""``layer_normalization``: standardizes each sample over its units, then scales and shifts.

Layer 5: imports backend, utils, variable, function_node, type_check, ``functions.math`` and
``functions.connection.linear``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.connection.linear import _may_skip_gradient_nodes
from chainer_compat.functions.normalization._common import check_eps
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import mean_in_numpy1_order, sum_in_numpy1_order
from chainer_compat.variable import Variable, _new_unlinked_variable


class LayerNormalization(FunctionNode):
    """Layer normalization of a ``(batch, units)`` input. Use :func:`layer_normalization`."""

    def __init__(self, eps: float = 1e-5) -> None:
        check_eps(eps, "layer_normalization")
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 2,
            gamma_type.ndim == 1,
            beta_type.ndim == 1,
            gamma_type.dtype == x_type.dtype,
            beta_type.dtype == x_type.dtype,
            gamma_type.shape == beta_type.shape,
        )
        # compat: Chainer does not type-check the unit count; NumPy's broadcasting rejects a
        # mismatch with ValueError, which is what Chainer's users catch, and lets one entry
        # serve every unit (whose gradient Chainer then fails to shape; ours sums it).
        units = type_check.eval(x_type.shape[1])
        gamma_shape = type_check.eval(gamma_type.shape)
        if gamma_shape not in ((units,), (1,)):
            x_shape = type_check.eval(x_type.shape)
            raise ValueError(
                f"gamma and beta must have shape (x.shape[1],) = ({units},) or (1,), got "
                f"{gamma_shape}: operands could not be broadcast together with x of shape "
                f"{x_shape}; pass one scale and one shift per unit of x")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        # compat: Chainer's order, one operation at a time (NOTE [Chainer's rounding] in
        # functions/loss/softmax_cross_entropy.py): the centered x times the reciprocal of the
        # standard deviation, then gamma, then beta.
        # compat: rows over 8,192 features are summed in NumPy 1's order (NOTE [NumPy 1 sum
        # order]), here and in the gradients below.
        centered = x - mean_in_numpy1_order(x, 1, keepdims=True)
        variance = mean_in_numpy1_order(xp.square(centered), 1, keepdims=True)
        inv_std = xp.reciprocal(xp.sqrt(variance + x.dtype.type(self.eps)))
        centered *= inv_std
        centered *= gamma
        centered += beta
        return utils.force_array(centered, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.math.average import average as _mean
        from chainer_compat.functions.math.sqrt import sqrt
        from chainer_compat.functions.math.square import square
        from chainer_compat.functions.math.sum import sum as _sum

        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        if _may_skip_gradient_nodes(gy):
            return self._gradients_without_nodes(indexes, x, gamma, gy)
        units = 1.0 / x.shape[1]
        # Recomputed from Variables so that the gradient is differentiable again.
        # compat: every gradient, wanted or not, through each step of the forward in turn, in
        # Chainer's order and with its repeated ``variance + eps``: a hook sees Chainer's nodes
        # and the gradients round as Chainer's (NOTE [Chainer's rounding]).
        centered = x - _mean(x, axis=1, keepdims=True)
        variance = _mean(square(centered), axis=1, keepdims=True)
        inv_std = 1.0 / sqrt(variance + self.eps)
        normalized = centered * inv_std
        g_beta = _sum(gy, axis=0)
        g_gamma = _sum(gy * normalized, axis=0)
        g_normalized = gy * gamma
        g_inv_std = _sum(g_normalized * centered, axis=1, keepdims=True)
        g_centered_directly = g_normalized * inv_std
        g_variance = g_inv_std * (-1.0 / (variance + self.eps)) * 0.5 * inv_std
        # Through the centered x directly and through the variance, then the mean.
        g_centered = g_centered_directly + g_variance * units * 2 * centered
        g_mean = _sum(g_centered, axis=1, keepdims=True) * -1.0
        g_x = g_centered + g_mean * units
        if gamma.shape != (x.shape[1],):  # one gamma and one beta for every unit
            g_gamma = _sum(g_gamma, axis=0, keepdims=True)
            g_beta = _sum(g_beta, axis=0, keepdims=True)
        all_grads = (g_x, g_gamma, g_beta)
        return tuple(all_grads[index] for index in indexes)

    def _gradients_without_nodes(self, indexes: tuple[int, ...], x: Variable, gamma: Variable,
                                 gy: Variable) -> tuple[Variable, ...]:
        """The gradients of :meth:`backward` on arrays, with the same operations in the same
        order, a few of them in place (NOTE [gradients without a node] in
        functions/connection/linear.py)."""
        x_array, gamma_array, gy_array = x.array, gamma.array, gy.array
        xp = backend.get_array_module(x_array)
        scalar = x_array.dtype.type
        units = scalar(1.0 / x_array.shape[1])
        centered = x_array - mean_in_numpy1_order(x_array, 1, keepdims=True)
        variance_plus_eps = (mean_in_numpy1_order(xp.square(centered), 1, keepdims=True)
                             + scalar(self.eps))
        inv_std = xp.reciprocal(xp.sqrt(variance_plus_eps))
        x_wants, gamma_wants, gy_wants = (v._node._requires_grad for v in (x, gamma, gy))
        grads: list[Variable] = []
        if 0 in indexes:
            g_centered = gy_array * gamma_array
            g_inv_std = sum_in_numpy1_order(g_centered * centered, 1, keepdims=True)
            g_variance = g_inv_std * (scalar(-1.0) / variance_plus_eps) * scalar(0.5) * inv_std
            g_centered *= inv_std
            g_centered += g_variance * units * scalar(2) * centered
            g_mean = sum_in_numpy1_order(g_centered, 1, keepdims=True) * scalar(-1.0)
            g_centered += g_mean * units
            grads.append(_new_unlinked_variable(g_centered, x_wants or gamma_wants or gy_wants))
        shared = gamma_array.shape != (x_array.shape[1],)
        if 1 in indexes:
            centered *= inv_std
            centered *= gy_array
            g_gamma = centered.sum(axis=0)
            if shared:
                g_gamma = g_gamma.sum(axis=0, keepdims=True)
            grads.append(_new_unlinked_variable(g_gamma, x_wants or gy_wants))
        if 2 in indexes:
            g_beta = gy_array.sum(axis=0)
            if shared:
                g_beta = g_beta.sum(axis=0, keepdims=True)
            grads.append(_new_unlinked_variable(g_beta, gy_wants))
        return tuple(grads)


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> variable.Variable:
    """Layer normalization: each row of ``x`` is standardized (mean 0, variance 1, over axis 1),
    then multiplied by ``gamma`` and shifted by ``beta``.

    Args:
        x: Float input of shape ``(batch_size, unit_size)``.
        gamma: Scale of shape ``(unit_size,)`` (or ``(1,)``, shared by every unit), of ``x``'s
            dtype.
        beta: Shift of ``gamma``'s shape and ``x``'s dtype.
        eps: Added to the variance for numerical stability.

    Returns:
        A Variable of ``x``'s shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or dimensions, or if
            ``gamma`` and ``beta`` differ in shape.
        ValueError: If ``gamma`` and ``beta`` have neither one entry per unit of ``x`` nor one.

    Compat:
        With ``gamma`` of shape ``(1,)``, Chainer's forward broadcasts it but its backward fails
        when ``gamma`` needs a gradient; ours sums that gradient over the units.
    """
    return LayerNormalization(eps).apply((x, gamma, beta))[0]
