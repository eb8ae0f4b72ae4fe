"""``group_normalization``: normalizes each sample's channels in groups with the group's own
statistics, then scales and shifts each channel.

Layer 5: imports backend, variable, function_node, type_check, the float16 steps of
``utils`` and ``functions`` (average, cast, reshape, sum, and batch_normalization's float16
mean). The gradient is Chainer's three
nodes (_XHat, _ScaleShiftGrad, _XHatGrad), each differentiable again, with _MulInvStd for the
second order.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.functions.array.reshape import reshape as _reshape
from chainer_compat.functions.math.average import average as _mean
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.functions.normalization.batch_normalization import _float16_mean
from chainer_compat.utils import type_check
from chainer_compat.utils._float16_rounding import float16_steps
from chainer_compat.utils._float16_rounding import steps_apply as _pure_float16
from chainer_compat.utils._reduction_order import mean_in_numpy1_order, sum_in_numpy1_order


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
        # normalizing dtype (in float16 from a float16 sum, with float32 sums only where that
        # overflows: NOTE [float16 statistics] in batch_normalization.py), the variance as
        # NumPy's mean does (float32 sums for float16), and the scale 1 / sqrt(var + eps).
        grouped = x.reshape(batch_size * self.groups, -1)
        mean = _row_mean(xp, grouped, dtype)
        steps = _pure_float16((grouped,), (gamma, beta))
        if steps:
            centered = float16_steps(grouped, (numpy.subtract, mean))
            squared = float16_steps(centered, (numpy.multiply, centered))
        else:
            centered = grouped - mean
            squared = centered * centered
        # compat: means in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        var = mean_in_numpy1_order(squared, axis=1, keepdims=True)
        del squared  # four temporaries of x's size at once cost page faults on every call
        var += self.eps
        # Kept for backward as columns, one entry per group of each sample, as Chainer keeps
        # them (its gradient nodes treat them as constants and differentiate analytically).
        self.mean = mean
        self.inv_std = xp.reciprocal(xp.sqrt(var))
        if steps:
            normalized = float16_steps(centered, (numpy.multiply, self.inv_std))
            y = float16_steps(normalized.reshape(batch_size, channels, -1),
                              (numpy.multiply, gamma[:, None]), (numpy.add, beta[:, None]))
            return y.reshape(x.shape),
        # The same operations as Chainer's, in place where the dtype allows: fewer arrays of
        # x's size alive at once.
        if numpy.result_type(centered.dtype, self.inv_std.dtype) == centered.dtype:
            centered *= self.inv_std
            normalized = centered.reshape(batch_size, channels, -1)
        else:
            normalized = (centered * self.inv_std).reshape(batch_size, channels, -1)
        del centered
        y = normalized * gamma.astype(dtype, copy=False)[:, None]
        y += beta.astype(dtype, copy=False)[:, None]
        return y.reshape(x.shape).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        gamma_wide = _cast(gamma, dtype)
        grouped = _cast(_reshape(x, (x.shape[0] * self.groups, -1)), dtype)
        normalized, = _XHat(self.mean, self.inv_std).apply((grouped,))
        g_normalized, g_gamma, g_beta = _ScaleShiftGrad().apply(
            (normalized, gamma_wide, _cast(gy, dtype)))
        gx, = _XHatGrad(self.mean, self.inv_std, normalized.array).apply(
            (grouped, g_normalized))
        # Parameters of another dtype than the normalizing one get gradients of their own
        # dtype (Chainer returns them in the normalizing dtype); of that dtype they are
        # returned as they are, without Chainer's no-op Cast nodes.
        if g_gamma.dtype != gamma.dtype:
            g_gamma = _cast(g_gamma, gamma.dtype)
            g_beta = _cast(g_beta, gamma.dtype)
        all_grads = (_cast(_reshape(gx, x.shape), x.dtype), g_gamma, g_beta)
        return tuple(all_grads[index] for index in indexes)


def _row_mean(xp: Any, x: Any, dtype: numpy.dtype[Any]) -> Any:
    """The mean of ``x`` along axis 1, kept as a column, in ``dtype``, as Chainer's
    ``x.mean(axis=1, dtype=dtype)`` gives it (NOTE [float16 statistics])."""
    if xp is numpy and dtype == numpy.float16:
        with numpy.errstate(over="ignore"):  # an overflow is handled below
            mean = _float16_mean(x, (1,), x.shape[1], keepdims=True)
        if numpy.isfinite(mean).all():
            return mean
        # Chainer's sum overflowed: float32 sums for those rows whose are finite.
        with numpy.errstate(over="ignore"):  # a mean beyond float16 stays inf, as Chainer's
            wide = mean_in_numpy1_order(x, 1, numpy.float32, keepdims=True).astype(numpy.float16)
        return numpy.where(~numpy.isfinite(mean) & numpy.isfinite(wide), wide, mean)
    # Summed in float32 at least (on a GPU a float16 x too: Chainer uses cuDNN there).
    wide_dtype = numpy.promote_types(dtype, numpy.float32)
    return mean_in_numpy1_order(x, 1, wide_dtype, keepdims=True).astype(dtype, copy=False)


class _OfStatistics(FunctionNode):
    """A node of the gradient that keeps the forward pass's per-row ``mean`` and ``inv_std``."""

    def __init__(self, mean: Any, inv_std: Any) -> None:
        self.mean = mean
        self.inv_std = inv_std


class _XHat(_OfStatistics):
    """The normalized rows ``(x - mean) * inv_std`` of a ``(rows, units)`` x, with the
    statistics of the forward pass held fixed."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        normalized = x - self.mean
        normalized *= self.inv_std
        return normalized,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        normalized, = self.get_retained_outputs()
        return _XHatGrad(self.mean, self.inv_std, normalized.array).apply(
            (x, grad_outputs[0]))


class _ScaleShiftGrad(FunctionNode):
    """From ``(normalized, gamma, gy)``: the gradients of ``normalized * gamma + beta`` with
    respect to ``normalized`` (in its ``(rows, units)`` shape), ``gamma`` and ``beta``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        normalized, gamma, gy = inputs
        by_channel = gy.shape[:2] + (-1,)
        gy = gy.reshape(by_channel)
        g_normalized = gy * gamma[:, None]
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        g_beta = sum_in_numpy1_order(gy, (0, 2))
        g_gamma = sum_in_numpy1_order(gy * normalized.reshape(by_channel), (0, 2))
        return g_normalized.reshape(normalized.shape), g_gamma, g_beta

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        normalized, gamma, gy = self.get_retained_inputs()
        gg_normalized, gg_gamma, gg_beta = grad_outputs
        by_channel = gy.shape[:2] + (-1,)
        gy_shape = gy.shape
        gy = _reshape(gy, by_channel)
        normalized_shape = normalized.shape
        normalized = _reshape(normalized, by_channel)
        # Compat: an output without a gradient (None) adds nothing; Chainer fails on it, as
        # when only x's gradient is differentiated again.
        if gg_normalized is not None:
            gg_normalized = _reshape(gg_normalized, by_channel)
        g_normalized = None if gg_gamma is None else gg_gamma[:, None] * gy
        g_gamma = None if gg_normalized is None else _sum(gg_normalized * gy, axis=(0, 2))
        # Each term is added as soon as it is built, in Chainer's order of nodes.
        g_gy = None
        if gg_normalized is not None:
            g_gy = gg_normalized * gamma[:, None]
        if gg_gamma is not None:
            term = gg_gamma[:, None] * normalized
            g_gy = term if g_gy is None else g_gy + term
        if gg_beta is not None:
            term = gg_beta[:, None]
            g_gy = term if g_gy is None else g_gy + term
        if g_normalized is not None:
            g_normalized = _reshape(g_normalized, normalized_shape)
        if g_gy is not None:
            g_gy = _reshape(g_gy, gy_shape)
        all_grads = (g_normalized, g_gamma, g_gy)
        return tuple(all_grads[index] for index in indexes)


class _XHatGrad(_OfStatistics):
    """From ``(x, g_normalized)``: the gradient of :class:`_XHat` with respect to ``x``,
    through the statistics too."""

    def __init__(self, mean: Any, inv_std: Any, normalized: Any) -> None:
        super().__init__(mean, inv_std)
        self.normalized = normalized

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        _, g_normalized = inputs
        normalized = self.normalized
        self.normalized = None  # recomputed by _XHat when differentiated again
        # compat: means in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        g_mean = mean_in_numpy1_order(g_normalized, 1, keepdims=True)
        if _pure_float16((g_normalized, normalized), (self.inv_std,)):
            g_projection = mean_in_numpy1_order(
                float16_steps(g_normalized, (numpy.multiply, normalized)), 1, keepdims=True)
            # The same steps in Python's order: (g - g_mean) - normalized g_projection, then
            # inv_std times that (a product of two values does not depend on their order).
            return float16_steps(
                g_normalized, (numpy.subtract, g_mean),
                (numpy.subtract, float16_steps(normalized, (numpy.multiply, g_projection))),
                (numpy.multiply, self.inv_std)),
        g_projection = mean_in_numpy1_order(g_normalized * normalized, 1, keepdims=True)
        return self.inv_std * (g_normalized - g_mean - normalized * g_projection),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, g_normalized = self.get_retained_inputs()
        gx, = self.get_retained_outputs()
        ggx, = grad_outputs
        normalized, = _XHat(self.mean, self.inv_std).apply((x,))
        grads = []
        if 0 in indexes:
            # Through inv_std's dependence on x (left) and through the normalized x (right).
            left, = _MulInvStd(self.mean, self.inv_std).apply(
                (x, normalized * _mean(ggx * gx, axis=1, keepdims=True)))
            right_std = (ggx * _mean(g_normalized * normalized, axis=1, keepdims=True)
                         + g_normalized * _mean(ggx * normalized, axis=1, keepdims=True))
            right, = _MulInvStd(self.mean, self.inv_std).apply((x, right_std))
            right, = _XHatGrad(self.mean, self.inv_std, normalized.array).apply((x, right))
            grads.append(-(left + right))
        if 1 in indexes:
            grads.append(_XHatGrad(self.mean, self.inv_std, normalized.array).apply(
                (x, ggx))[0])
        return tuple(grads)


class _MulInvStd(_OfStatistics):
    """From ``(x, y)``: ``inv_std * y``, where ``inv_std`` depends on ``x`` (held fixed in
    forward, differentiated in backward)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        _, y = inputs
        return self.inv_std * y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        z, = self.get_retained_outputs()
        gz, = grad_outputs
        normalized, = _XHat(self.mean, self.inv_std).apply((x,))
        gx_std = normalized * _mean(gz * z, axis=1, keepdims=True)
        gx, = _MulInvStd(self.mean, self.inv_std).apply((x, gx_std))
        gy, = _MulInvStd(self.mean, self.inv_std).apply((x, gz))
        all_grads = (-gx, gy)
        return tuple(all_grads[index] for index in indexes)


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
