"""``group_normalization``: normalizes each sample's channels in groups with the group's own
statistics, then scales and shifts each channel.

Layer 5: imports backend, variable, function_node, type_check and ``functions`` (broadcast_to,
cast, reshape, sqrt, sum), of which the gradient is composed, so double backprop works.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to as _broadcast_to
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.functions.array.reshape import reshape as _reshape
from chainer_compat.functions.math.sqrt import sqrt as _sqrt
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
        # compat: Chainer's CPU order, one operation at a time, for its rounding (NOTE
        # [Chainer's rounding] in functions/loss/softmax_cross_entropy.py): the mean in the
        # normalizing dtype, the variance as NumPy's mean does, and the scale 1 / sqrt(var +
        # eps). One departure: float16 statistics are summed in float32 (_RowMean), as
        # batch_normalization's are; Chainer's float16 sums overflow.
        grouped = x.reshape(batch_size * self.groups, -1)
        mean = _row_mean(grouped, dtype)
        centered = grouped - mean
        var = (centered * centered).mean(axis=1, keepdims=True)
        var += self.eps
        normalized = (centered * xp.reciprocal(xp.sqrt(var))).reshape(batch_size, channels, -1)
        y = (normalized * gamma.astype(dtype, copy=False)[:, None]
             + beta.astype(dtype, copy=False)[:, None])
        return y.reshape(x.shape).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        batch_size, channels = x.shape[:2]
        rows = batch_size * self.groups
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        # The statistics are recomputed from x with differentiable functions, so that this
        # gradient is itself differentiable; each step rounds as Chainer's CPU backward does
        # (see forward).
        grouped = _reshape(x, (rows, -1))
        mean = _RowMean(dtype).apply((grouped,))[0]
        centered = _cast(grouped, dtype) - mean
        var = _RowMean().apply((centered * centered,))[0]
        inv_std = 1.0 / _sqrt(var + self.eps)
        normalized = centered * inv_std
        gy_wide = _reshape(_cast(gy, dtype), (batch_size, channels, -1))
        normalized_by_channel = _reshape(normalized, (batch_size, channels, -1))
        grads: list[Any] = []
        if 0 in indexes:
            g_normalized = _reshape(
                gy_wide * _reshape(_cast(gamma, dtype), (1, channels, 1)), (rows, -1))
            g_mean = _RowMean().apply((g_normalized,))[0]
            g_projection = _RowMean().apply((g_normalized * normalized,))[0]
            gx = inv_std * (g_normalized - g_mean - normalized * g_projection)
            grads.append(_cast(_reshape(gx, x.shape), x.dtype))
        if 1 in indexes:
            grads.append(_cast(_sum(gy_wide * normalized_by_channel, axis=(0, 2)), gamma.dtype))
        if 2 in indexes:
            grads.append(_cast(_sum(gy_wide, axis=(0, 2)), gamma.dtype))
        return tuple(grads)


def _row_mean(x: Any, dtype: Any) -> Any:
    """The mean of ``x`` along axis 1, kept as a column, in ``dtype`` (NumPy's when None),
    summed in float32 or wider."""
    if dtype is None:
        return x.mean(axis=1, keepdims=True)
    wide = numpy.promote_types(dtype, numpy.float32)
    return x.mean(axis=1, keepdims=True, dtype=wide).astype(dtype, copy=False)


class _RowMean(FunctionNode):
    """The mean of a 2-D array along axis 1, kept as a column, rounded as NumPy's ``mean``.

    Args:
        dtype: The dtype to return in, summed in float32 or wider; None for NumPy's default
            (float16 is accumulated in float32 and returned in float16).
    """

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._input_shape = x.shape
        self._input_dtype = x.dtype
        return _row_mean(x, self.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = grad_outputs
        spread = _broadcast_to(gy, self._input_shape) * (1.0 / self._input_shape[1])
        return _cast(spread, self._input_dtype),


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
