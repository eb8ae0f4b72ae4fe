"""``group_normalization``: normalizes each sample's channels in groups with the group's own
statistics, then scales and shifts each channel.

Layer 5: imports backend, variable, function_node, type_check and ``functions`` (cast, sum).
The gradient is composed of differentiable functions, so double backprop works.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.functions.array.reshape import reshape as _reshape
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check


class GroupNormalization(FunctionNode):
    """Group normalization. Use :func:`group_normalization`.

    Args:
        groups: Number of channel groups.
        eps: Added to the variance.
    """

    def __init__(self, groups: int, eps: float = 1e-5) -> None:
        if not isinstance(groups, int):
            # compat: Chainer's type and wording.
            raise TypeError("Argument: 'groups' type must be (int).")
        self.groups = groups
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 3)
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= 2,
            gamma_type.ndim == 1,
            beta_type.ndim == 1,
            gamma_type.dtype.kind == "f",
            gamma_type.dtype == beta_type.dtype,
            x_type.shape[1] == gamma_type.shape[0],
            gamma_type.shape == beta_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, beta = inputs
        batch_size, channels = x.shape[:2]
        if channels % self.groups != 0:
            # compat: Chainer's wording.
            raise ValueError(
                f"The number of channels {channels} is not divisible by 'groups' argument "
                f"{self.groups}.")
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        # Mixed precision: a float16 x with float32 parameters is normalized in float32.
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        grouped = x.reshape(batch_size * self.groups, -1).astype(dtype, copy=False)
        mean = grouped.mean(axis=1, keepdims=True)
        centered = grouped - mean
        var = (centered * centered).mean(axis=1, keepdims=True)
        normalized = centered * xp.reciprocal(xp.sqrt(var + dtype.type(self.eps)))
        normalized = normalized.reshape(batch_size, channels, -1)
        y = normalized * gamma.astype(dtype, copy=False)[:, None] + beta.astype(
            dtype, copy=False)[:, None]
        return y.reshape(x.shape).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        batch_size, channels = x.shape[:2]
        rows = batch_size * self.groups
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        # The statistics are recomputed from x with differentiable functions, so that this
        # gradient is itself differentiable.
        grouped = _reshape(_cast(x, dtype), (rows, -1))
        count = grouped.shape[1]
        mean = _sum(grouped, axis=1, keepdims=True) * (1.0 / count)
        centered = grouped - mean
        var = _sum(centered * centered, axis=1, keepdims=True) * (1.0 / count)
        inv_std = (var + self.eps) ** -0.5
        normalized = _reshape(centered * inv_std, (batch_size, channels, -1))
        gy_wide = _reshape(_cast(gy, dtype), (batch_size, channels, -1))
        grads: list[Any] = []
        if 0 in indexes:
            g_normalized = _reshape(
                gy_wide * _reshape(_cast(gamma, dtype), (1, channels, 1)), (rows, -1))
            flat_normalized = _reshape(normalized, (rows, -1))
            g_mean = _sum(g_normalized, axis=1, keepdims=True) * (1.0 / count)
            g_projection = _sum(g_normalized * flat_normalized, axis=1, keepdims=True) * (
                1.0 / count)
            gx = inv_std * (g_normalized - g_mean - flat_normalized * g_projection)
            grads.append(_cast(_reshape(gx, x.shape), x.dtype))
        if 1 in indexes:
            grads.append(_cast(_sum(gy_wide * normalized, axis=(0, 2)), gamma.dtype))
        if 2 in indexes:
            grads.append(_cast(_sum(gy_wide, axis=(0, 2)), gamma.dtype))
        return tuple(grads)


def group_normalization(x: Any, groups: int, gamma: Any, beta: Any, eps: float = 1e-5
                        ) -> variable.Variable:
    """Group normalization: splits the channels of each sample into ``groups`` groups,
    standardizes each group with its own mean and variance, then scales each channel by
    ``gamma`` and shifts it by ``beta``.

    Args:
        x: Float input of shape ``(N, C, ...)``.
        groups: Number of groups; must divide ``C``.
        gamma: Scale of shape ``(C,)``; a float16 ``x`` with float32 parameters is normalized
            in float32.
        beta: Shift of ``gamma``'s shape and dtype.
        eps: Added to the variance.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        TypeError: If ``groups`` is not an int.
        ValueError: If ``groups`` does not divide the number of channels.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.

    See: `Group Normalization <https://arxiv.org/abs/1803.08494>`_
    """
    return GroupNormalization(groups, eps).apply((x, gamma, beta))[0]
