"""``layer_normalization``: standardizes each sample over its units, then scales and shifts.

Layer 5: imports backend, utils, variable, function_node, type_check and ``functions.math``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class LayerNormalization(FunctionNode):
    """Layer normalization of a ``(batch, units)`` input. Use :func:`layer_normalization`."""

    def __init__(self, eps: float = 1e-5) -> None:
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
        centered = x - x.mean(axis=1, keepdims=True)
        variance = xp.square(centered).mean(axis=1, keepdims=True)
        normalized = centered / xp.sqrt(variance + x.dtype.type(self.eps))
        return utils.force_array(normalized * gamma + beta, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.math.sum import sum as _sum

        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        units = 1.0 / x.shape[1]
        # Recomputed from Variables so that the gradient is differentiable again.
        centered = x - _sum(x, axis=1, keepdims=True) * units
        variance = _sum(centered * centered, axis=1, keepdims=True) * units
        inv_std = (variance + self.eps) ** -0.5
        normalized = centered * inv_std
        grads: list[Any] = []
        if 0 in indexes:
            g_normalized = gy * gamma
            mean_g = _sum(g_normalized, axis=1, keepdims=True) * units
            mean_g_projection = _sum(g_normalized * normalized, axis=1, keepdims=True) * units
            grads.append(inv_std * (g_normalized - mean_g - normalized * mean_g_projection))
        shared = gamma.shape != (x.shape[1],)  # one gamma and one beta for every unit
        if 1 in indexes:
            g_gamma = _sum(gy * normalized, axis=0)
            grads.append(_sum(g_gamma, axis=0, keepdims=True) if shared else g_gamma)
        if 2 in indexes:
            g_beta = _sum(gy, axis=0)
            grads.append(_sum(g_beta, axis=0, keepdims=True) if shared else g_beta)
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
