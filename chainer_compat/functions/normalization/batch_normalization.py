"""``batch_normalization`` (statistics of the batch, updating running averages) and
``fixed_batch_normalization`` (given statistics), with their gradients.

Layer 5: imports backend, utils, variable, function_node, type_check, ``functions.array.cast``,
``functions.math.sum`` and ``functions.connection.linear``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.functions.connection.linear import _may_skip_gradient_nodes
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.functions.normalization._common import check_eps
from chainer_compat.utils import argument, type_check
from chainer_compat.utils._float16_rounding import float16_steps, round_to_float16
from chainer_compat.utils._float16_rounding import steps_apply as _pure_float16
from chainer_compat.utils._reduction_order import (
    mean_in_numpy1_order,
    sum_in_numpy1_order,
    var_in_numpy1_order,
)
from chainer_compat.variable import Variable, _new_unlinked_variable

# NOTE [batch normalization gradients]
# As in Chainer, each normalization's backward applies one node of its own, BatchNormalizationGrad
# or FixedBatchNormalizationGrad, which computes the gradients on arrays from the forward's
# statistics (with Chainer's rounding) and whose own backward gives the second-order gradients,
# from formulas written out below. Function hooks and double backprop see that one node. When
# nothing can differentiate or observe the gradients (NOTE [gradients without a node] in
# functions/connection/linear.py) the same arithmetic runs without the node.


# NOTE [float16 statistics]
# Chainer's CPU code takes a float16 batch's statistics in float16: NumPy's float16 sums (float32
# within each contiguous run, rounded to float16 between runs), each divided by the count and
# rounded once. Ours computes them the same way, so a pure float16 normalization gives Chainer's
# outputs, running statistics and gradients to the last bit. Those sums overflow from 65504 (a
# channel of 1,000 values near 66, or with a standard deviation above 8.1), where Chainer's
# statistic is inf and its output beta or NaN, and they saturate where a reduction over the
# batch axis rounds to float16 after every sample (the mean of 4,000 values near 3 comes out
# 2.05). So ours also takes float32 sums, and where Chainer's statistics stray from those by
# more than 2**-5 of the channel's scale (3%; float16 rounding alone stays below 1% up to
# 2,000 samples), it uses the float32 ones (rounded to float16): a correct result where
# Chainer's is wrong. Where x holds an inf or NaN,
# the statistics are Chainer's. (The variance is NumPy's: the float16 sum of the squared
# deviations from the float16 mean.)


def _normalize_axis(axis: Any) -> tuple[int, ...] | None:
    """``axis`` as a tuple of ints (or None), as the functions and the link accept it."""
    if axis is None:
        return None
    if isinstance(axis, (int, numpy.integer)) and not isinstance(axis, bool):
        return (int(axis),)
    if isinstance(axis, Sequence) and not isinstance(axis, str):
        values = tuple(int(a) for a in axis)
        if any(earlier >= later for earlier, later in zip(values, values[1:])):
            # compat: Chainer's type and wording.
            raise RuntimeError("numbers in axis must be sorted in ascending order")
        return values
    raise RuntimeError(
        f"axis must be int, tuple of int or None, got {type(axis).__name__}")


def _accumulation_dtype(dtype: numpy.dtype[Any]) -> numpy.dtype[Any]:
    """The dtype the statistics of ``dtype`` data are summed in: float32 or wider."""
    return numpy.promote_types(dtype, numpy.float32)


def _batch_statistics(xp: Any, x: Any, axis: tuple[int, ...], dtype: numpy.dtype[Any]
                      ) -> tuple[Any, Any]:
    """The mean and (biased) variance of ``x`` over ``axis``, in ``dtype``, as Chainer's
    ``x.mean(axis, dtype)`` and ``x.var(axis, dtype)`` give them (NOTE [float16 statistics])."""
    if xp is numpy and dtype == numpy.float16:
        mean, var = _float16_statistics(x, axis)
        return _float32_where_chainer_strays(x, axis, mean, var)
    # Summed in float32 at least (on a GPU a float16 batch too: Chainer uses cuDNN there).
    wide = _accumulation_dtype(dtype)
    # compat: runs longer than 8,192 are summed in NumPy 1's order (NOTE [NumPy 1 sum order]).
    return (mean_in_numpy1_order(x, axis, wide).astype(dtype, copy=False),
            var_in_numpy1_order(x, axis, wide).astype(dtype, copy=False))


def _float16_statistics(x: Any, axis: tuple[int, ...]) -> tuple[Any, Any]:
    """``x``'s mean and variance over ``axis`` from float16 sums, as NumPy computes them for
    ``dtype=float16`` (NOTE [float16 statistics]); inf where those sums overflow."""
    count = _count(x.shape, axis)
    with numpy.errstate(over="ignore", invalid="ignore"):  # overflows are handled by the caller
        mean = _float16_mean(x, axis, count, keepdims=True)
        squared = _squared_deviations(x, mean)
        var = _divided_by_count(sum_in_numpy1_order(squared, axis, numpy.float16), count)
    return mean.reshape(numpy.shape(var)), var


def _squared_deviations(x: Any, mean: Any) -> Any:
    """``(x - mean) ** 2`` one operation at a time, as NumPy's ``x.var`` takes it."""
    if x.dtype != numpy.float16:
        centered = x - mean
        centered *= centered
        return centered
    # NumPy's float16 subtract and multiply compute in float32 and round to float16; so does
    # this, several times faster (NOTE [float16 steps in float32]).
    wide = numpy.asarray(x).astype(numpy.float32)
    wide -= mean.astype(numpy.float32)
    round_to_float16(wide)
    wide *= wide
    return wide.astype(numpy.float16)


def _float16_mean(x: Any, axis: tuple[int, ...], count: int, keepdims: bool = False) -> Any:
    """``x.mean(axis, dtype=float16)`` as NumPy computes it: a float16 sum, then divided."""
    return _divided_by_count(sum_in_numpy1_order(x, axis, numpy.float16, keepdims), count)


def _divided_by_count(total: Any, count: int) -> Any:
    """A float16 sum divided by the int ``count``, rounded once to float16."""
    # compat: NumPy 1's mean divides in the narrowest float that holds the count exactly,
    # NumPy 2's in float64; each rounds the quotient correctly, as this does for any count.
    # (A float16 array divided by a Python int would round the count to float16 first.)
    return (total.astype(numpy.float64) / count).astype(numpy.float16)


def _count(shape: tuple[int, ...], axis: tuple[int, ...]) -> int:
    """The number of entries of an array of ``shape`` reduced into each entry over ``axis``."""
    count = 1
    for i in axis:
        count *= shape[i]
    return count


def _float32_where_chainer_strays(x: Any, axis: tuple[int, ...], mean: Any, var: Any
                                  ) -> tuple[Any, Any]:
    """``mean`` and ``var``, with the statistics taken from float32 sums wherever Chainer's
    stray from them and those are finite (NOTE [float16 statistics])."""
    with numpy.errstate(over="ignore", invalid="ignore"):  # inf or NaN stay as they are
        wide_mean = x.mean(axis=axis, dtype=numpy.float32)
        wide_var = x.var(axis=axis, dtype=numpy.float32)
        # 2**-5 of the channel's scale: the rounding of Chainer's float16 running sums stays
        # well within it (below 1% at 2,000 samples) until they saturate or overflow
        # (comparisons with NaN count as strays).
        tolerance = numpy.float32(2.0 ** -5)
        kept = ((numpy.abs(mean - wide_mean) <= tolerance * (numpy.abs(wide_mean)
                                                               + numpy.sqrt(wide_var)))
                & (numpy.abs(var - wide_var) <= tolerance * wide_var))
        if kept.all():
            return mean, var
        wide_mean = wide_mean.astype(numpy.float16)
        wide_var = wide_var.astype(numpy.float16)
    replace = ~kept & numpy.isfinite(wide_mean) & numpy.isfinite(wide_var)
    return numpy.where(replace, wide_mean, mean), numpy.where(replace, wide_var, var)


def _statistics_axis(x_ndim: int, gamma_ndim: int, axis: tuple[int, ...] | None
                     ) -> tuple[int, ...]:
    """The axes the statistics are taken over: ``axis``, or the batch axis and every axis
    after those ``gamma`` spans."""
    if axis is not None:
        return axis
    return (0,) + tuple(range(gamma_ndim + 1, x_ndim))


def _kept_axis(x_ndim: int, axis: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of ``x`` that ``gamma`` spans: those the statistics are not taken over."""
    return tuple(i for i in range(x_ndim) if i not in axis)


def _check_parameter_types(in_types: Any, axis: tuple[int, ...] | None) -> None:
    """The shape checks shared by both normalizations: ``gamma`` spans the kept axes of ``x``."""
    x_type, gamma_type = in_types[0], in_types[1]
    x_ndim = type_check.eval(x_type.ndim)
    gamma_ndim = type_check.eval(gamma_type.ndim)
    statistics_axis = _statistics_axis(x_ndim, gamma_ndim, axis)
    type_check.expect(x_type.ndim >= len(statistics_axis))
    kept_axis = _kept_axis(x_ndim, statistics_axis)
    type_check.expect(gamma_type.ndim == len(kept_axis))
    for i, kept in enumerate(kept_axis):
        type_check.expect(x_type.shape[kept] == gamma_type.shape[i])


def _expanded_shape(x_shape: tuple[int, ...], kept_axis: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of ``gamma`` with ones inserted so that it broadcasts against ``x``."""
    return tuple(size if i in kept_axis else 1 for i, size in enumerate(x_shape))


def _warn_single_entry_statistics(x_shape: tuple[int, ...], axis: tuple[int, ...]) -> None:
    if all(x_shape[i] == 1 for i in axis):
        if 0 in axis:
            message = (
                "batch_normalization got a batch of one sample, whose normalized output is "
                "always zero; was chainer.config.train left True for evaluation? (The last "
                "batch of a non-repeating iterator can also be this small.)")
        else:
            message = (
                "batch_normalization got an input with one entry along every axis its "
                "statistics are taken over, whose normalized output is always zero")
        warnings.warn(message, UserWarning, stacklevel=4)


def _normalize(xp: Any, x: Any, mean: Any, inv_std: Any, gamma: Any, beta: Any) -> Any:
    """``(x - mean) * inv_std * gamma + beta``, the statistics and parameters expanded to
    broadcast against ``x``; in the promoted dtype, not yet cast to ``x``'s."""
    if xp is not numpy:
        return (x - mean) * (gamma * inv_std) + beta
    # compat: Chainer's CPU order, one product at a time (NOTE [Chainer's rounding] in
    # functions/loss/softmax_cross_entropy.py); one pass more than folding gamma into inv_std.
    if all(a.dtype == numpy.float16 for a in (x, mean, inv_std, gamma, beta)):
        # NumPy's float16 loops, several times faster (NOTE [float16 steps in float32]).
        return float16_steps(x, (numpy.subtract, mean), (numpy.multiply, inv_std),
                             (numpy.multiply, gamma), (numpy.add, beta))
    y = x - mean
    y *= inv_std
    y *= gamma
    y += beta
    return y


class BatchNormalization(FunctionNode):
    """Batch normalization with the batch's statistics. Use :func:`batch_normalization`.

    Args:
        eps: Added to the variance.
        mean: Running mean updated in place, or None.
        var: Running variance updated in place (with the unbiased variance), or None.
        decay: Weight of the old running values.
        axis: Axes to take the statistics over (int, tuple or None for the default).
    """

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, axis: Any = None) -> None:
        check_eps(eps, "batch_normalization")
        self.running_mean = mean
        self.running_var = var
        self.eps = eps
        self.decay = decay
        self.axis = _normalize_axis(axis)
        self._reduction_axis: tuple[int, ...] = ()
        self.mean: Any = None
        self.inv_std: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 3)
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            gamma_type.dtype.kind == "f",
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
        )
        _check_parameter_types(in_types, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        axis = _statistics_axis(x.ndim, gamma.ndim, self.axis)
        self.axis = self._reduction_axis = axis
        _warn_single_entry_statistics(x.shape, axis)
        shape = _expanded_shape(x.shape, _kept_axis(x.ndim, axis))
        # Mixed precision: a float16 x with float32 parameters is normalized in float32.
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        mean, var = _batch_statistics(xp, x, axis, dtype)  # NOTE [float16 statistics]
        inv_std = xp.reciprocal(xp.sqrt(var + dtype.type(self.eps)))
        y = _normalize(xp, x, mean.reshape(shape), inv_std.reshape(shape),
                       gamma.astype(dtype, copy=False).reshape(shape),
                       beta.astype(dtype, copy=False).reshape(shape))
        if self.running_mean is not None:
            count = x.size // gamma.size
            unbiased = count / max(count - 1.0, 1.0)
            self.running_mean *= self.decay
            self.running_mean += (1 - self.decay) * mean
            self.running_var *= self.decay
            self.running_var += (1 - self.decay) * unbiased * var
        self.mean = mean
        self.inv_std = inv_std
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        if _may_skip_gradient_nodes(gy):
            return self._gradients_without_nodes(indexes, x, gamma, gy)
        # NOTE [batch normalization gradients]
        return BatchNormalizationGrad(self.eps, self._reduction_axis, self.mean,
                                      self.inv_std).apply((x, gamma, gy))

    def _gradients_without_nodes(self, indexes: tuple[int, ...], x: Variable, gamma: Variable,
                                 gy: Variable) -> tuple[Variable, ...]:
        """The gradients of :meth:`backward` on arrays, from the forward's statistics."""
        arrays = _gradient_arrays(indexes, x.array, gamma.array, gy.array, self.mean,
                                  self.inv_std, self._reduction_axis)
        x_wants, gamma_wants, gy_wants = (
            v._node._requires_grad for v in (x, gamma, gy))
        wants = {0: x_wants or gamma_wants or gy_wants, 1: x_wants or gy_wants, 2: gy_wants}
        return tuple(_new_unlinked_variable(array, wants[index])
                     for index, array in zip(indexes, arrays))


def _gradient_arrays(indexes: tuple[int, ...], x: Any, gamma: Any, gy: Any, mean: Any,
                     inv_std: Any, axis: tuple[int, ...]) -> list[Any]:
    """The gradients of x, gamma and beta named by ``indexes``, from the forward's ``mean`` and
    ``inv_std``, in Chainer's arithmetic."""
    count = x.size // gamma.size
    shape = _expanded_shape(x.shape, _kept_axis(x.ndim, axis))
    if _pure_float16((x, gy), (gamma, mean, inv_std)):
        return _float16_gradient_arrays(indexes, x, gamma, gy, mean, inv_std, axis, count,
                                        shape)
    normalized = x - mean.reshape(shape)
    normalized *= inv_std.reshape(shape)
    # compat: Chainer sums in gamma's dtype and scales by 1/m rounded to it (NOTE [Chainer's
    # rounding] in functions/loss/softmax_cross_entropy.py).
    g_beta = sum_in_numpy1_order(gy, axis, gamma.dtype)
    g_gamma = sum_in_numpy1_order(gy * normalized, axis, gamma.dtype)
    grads: list[Any] = []
    if 0 in indexes:
        # gamma inv_std (gy - (normalized g_gamma + g_beta) / m), in Chainer's order. The
        # difference is a new array, laid out as Chainer's gy - (...) is (as gy, where gy and x
        # differ in layout), so that later reductions over gx (a convolution's weight gradient)
        # add in Chainer's order too (NOTE [Chainer's rounding]).
        projection = normalized * g_gamma.reshape(shape)
        projection += g_beta.reshape(shape)
        projection *= gamma.dtype.type(1.0 / count)
        gx = gy - projection
        del projection
        gx *= (gamma * inv_std).reshape(shape)
        grads.append(gx.astype(x.dtype, copy=False))
    if 1 in indexes:
        grads.append(g_gamma.astype(gamma.dtype, copy=False))
    if 2 in indexes:
        grads.append(g_beta.astype(gamma.dtype, copy=False))
    return grads


def _float16_gradient_arrays(indexes: tuple[int, ...], x: Any, gamma: Any, gy: Any, mean: Any,
                             inv_std: Any, axis: tuple[int, ...], count: int,
                             shape: tuple[int, ...]) -> list[Any]:
    """:func:`_gradient_arrays` of C-contiguous float16 arrays with the same steps, each
    rounded as NumPy's float16 loops round it (NOTE [float16 steps in float32])."""
    normalized = float16_steps(x, (numpy.subtract, mean.reshape(shape)),
                               (numpy.multiply, inv_std.reshape(shape)))
    g_beta = sum_in_numpy1_order(gy, axis, numpy.float16)
    g_gamma = sum_in_numpy1_order(float16_steps(gy, (numpy.multiply, normalized)), axis,
                                  numpy.float16)
    grads: list[Any] = []
    if 0 in indexes:
        projection = float16_steps(
            normalized, (numpy.multiply, g_gamma.reshape(shape)),
            (numpy.add, g_beta.reshape(shape)), (numpy.multiply, numpy.float16(1.0 / count)))
        grads.append(float16_steps(gy, (numpy.subtract, projection),
                                   (numpy.multiply, (gamma * inv_std).reshape(shape))))
    if 1 in indexes:
        grads.append(g_gamma)
    if 2 in indexes:
        grads.append(g_beta)
    return grads


class BatchNormalizationGrad(FunctionNode):
    """The gradients of :class:`BatchNormalization`: ``(x, gamma, gy) -> (gx, ggamma, gbeta)``.

    Args:
        eps: The forward's ``eps``.
        axis: The axes its statistics were taken over.
        mean: The batch mean it computed.
        inv_std: Its inverse standard deviation.
    """

    def __init__(self, eps: float, axis: tuple[int, ...], mean: Any, inv_std: Any) -> None:
        self.eps = eps
        self.axis = axis
        self.mean = mean
        self.inv_std = inv_std

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        self.retain_outputs((0, 1))
        x, gamma, gy = inputs
        return tuple(_gradient_arrays((0, 1, 2), x, gamma, gy, self.mean, self.inv_std,
                                      self.axis))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With m entries per statistic, s = inv_std, n = (x - mean) s and sums over the batch
        # axes: gbeta = sum gy, ggamma = sum gy n and gx = gamma s (gy - (n ggamma + gbeta) / m).
        # Given the gradients (hx, hgamma, hbeta) of those three, below are the derivatives of
        # sum hx gx + hgamma ggamma + hbeta gbeta by x, gamma and gy, with the forward's mean
        # and s as constants and their dependence on x written out. Chainer's expressions in
        # Chainer's order, so the second-order gradients round alike.
        x, gamma, gy = self.get_retained_inputs()
        gx, g_gamma = self.get_retained_outputs()
        h_x, h_gamma, h_beta = grad_outputs
        xp = backend.get_array_module(x.array)
        gamma_dtype = gamma.dtype
        if gamma.dtype != x.dtype:
            gamma, g_gamma = _cast(gamma, x.dtype), _cast(g_gamma, x.dtype)
            h_gamma = None if h_gamma is None else _cast(h_gamma, x.dtype)
            h_beta = None if h_beta is None else _cast(h_beta, x.dtype)
        axis = self.axis
        expander = _expander(x.ndim, axis)
        inv_std = self.inv_std
        inv_count = gamma.dtype.type(1.0 / (x.size // gamma.size))
        by_gx: Any = 0 if h_x is None else _sum(gx * h_x, axis=axis)
        scale = gamma * inv_std
        scale_over_count = scale * inv_count
        normalized = (x - self.mean[expander]) * inv_std[expander]
        if h_x is None:
            h_x = xp.zeros(x.shape, x.dtype)
        if h_gamma is None:
            h_gamma = xp.zeros(gamma.shape, gamma.dtype)
        if h_beta is None:
            h_beta = xp.zeros(gamma.shape, gamma.dtype)
        h_gamma = h_gamma - scale_over_count * _sum(normalized * h_x, axis=axis)
        h_beta = h_beta - scale_over_count * _sum(h_x, axis=axis)
        grad_gamma = by_gx / gamma
        by_normalized = (h_gamma[expander] * gy
                         - (scale_over_count * g_gamma)[expander] * h_x)
        by_std = -inv_std * (by_gx + _sum(normalized * by_normalized, axis=axis))
        by_mean = -inv_std * _sum(by_normalized, axis=axis)
        grad_x = inv_std[expander] * by_normalized + inv_count * (
            by_mean[expander] + normalized * by_std[expander])
        grad_gy = h_gamma[expander] * normalized + h_beta[expander] + scale[expander] * h_x
        return (_cast(grad_x, x.dtype), _cast(grad_gamma, gamma_dtype),
                _cast(grad_gy, gy.dtype))


def _expander(ndim: int, axis: tuple[int, ...]) -> tuple[Any, ...]:
    """The index that lifts a per-statistic array to broadcast against an ``ndim``-d input."""
    return tuple(None if dimension in axis else slice(None) for dimension in range(ndim))


class FixedBatchNormalization(FunctionNode):
    """Batch normalization with given statistics. Use :func:`fixed_batch_normalization`.

    Args:
        eps: Added to the variance.
        axis: Axes the statistics were taken over (int, tuple or None for the default).
    """

    def __init__(self, eps: float = 2e-5, axis: Any = None) -> None:
        check_eps(eps, "fixed_batch_normalization")
        self.eps = eps
        self.axis = _normalize_axis(axis)
        self._reduction_axis: tuple[int, ...] = ()

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 5)
        x_type, gamma_type, beta_type, mean_type, var_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            gamma_type.dtype.kind == "f",
            beta_type.dtype == gamma_type.dtype,
            mean_type.dtype == gamma_type.dtype,
            var_type.dtype == gamma_type.dtype,
            beta_type.shape == gamma_type.shape,
            mean_type.shape == gamma_type.shape,
            var_type.shape == gamma_type.shape,
        )
        _check_parameter_types(in_types, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 3, 4))
        x, gamma, beta, mean, var = inputs
        xp = backend.get_array_module(x)
        axis = _statistics_axis(x.ndim, gamma.ndim, self.axis)
        self.axis = self._reduction_axis = axis
        shape = _expanded_shape(x.shape, _kept_axis(x.ndim, axis))
        _, inv_std = _fixed_inverses(xp, var, self.eps)
        y = _normalize(xp, x, mean.reshape(shape), inv_std.reshape(shape),
                       gamma.reshape(shape), beta.reshape(shape))
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, mean, var = self.get_retained_inputs()
        gy, = grad_outputs
        axis = self._reduction_axis
        if _may_skip_gradient_nodes(gy):
            return _fixed_gradients_without_nodes(indexes, x, gamma, mean, var, gy, axis,
                                                  self.eps)
        # NOTE [batch normalization gradients]
        return FixedBatchNormalizationGrad(self.eps, axis).apply((x, gamma, mean, var, gy))


def _fixed_gradients_without_nodes(indexes: tuple[int, ...], x: Variable, gamma: Variable,
                                   mean: Variable, var: Variable, gy: Variable,
                                   axis: tuple[int, ...], eps: float) -> tuple[Variable, ...]:
    """The gradients of :meth:`FixedBatchNormalization.backward` on arrays."""
    arrays = _fixed_gradient_arrays(indexes, x.array, gamma.array, mean.array, var.array,
                                    gy.array, axis, eps)
    x_wants, gamma_wants, mean_wants, var_wants, gy_wants = (
        v._node._requires_grad for v in (x, gamma, mean, var, gy))
    statistics_wants = gamma_wants or var_wants or gy_wants
    moments_wants = x_wants or mean_wants or statistics_wants
    wants = {0: statistics_wants, 1: moments_wants, 2: gy_wants, 3: statistics_wants,
             4: moments_wants}
    return tuple(_new_unlinked_variable(array, wants[index])
                 for index, array in zip(indexes, arrays))


def _fixed_gradient_arrays(indexes: tuple[int, ...], x: Any, gamma: Any, mean: Any, var: Any,
                           gy: Any, axis: tuple[int, ...], eps: float) -> list[Any]:
    """The gradients of x, gamma, beta, mean and var named by ``indexes``, in Chainer's
    arithmetic."""
    xp = backend.get_array_module(x)
    shape = _expanded_shape(x.shape, _kept_axis(x.ndim, axis))
    dtype = gamma.dtype
    inv_var, inv_std = _fixed_inverses(xp, var, eps)
    scale = gamma * inv_std
    grads: list[Any] = []
    if 0 in indexes:
        grads.append((gy * scale.reshape(shape)).astype(x.dtype, copy=False))
    g_beta = sum_in_numpy1_order(gy, axis, dtype)
    g_gamma = None
    if 1 in indexes or 4 in indexes:
        normalized = x - mean.reshape(shape)
        normalized *= inv_std.reshape(shape)
        # compat: a new product, summed in its dtype, as Chainer sums it (NOTE [Chainer's
        # rounding] in functions/loss/softmax_cross_entropy.py): its memory order, which
        # NumPy picks from both operands, decides the order of the sum when x is not
        # C-contiguous (a convolution's output is channels-last).
        g_gamma = sum_in_numpy1_order(normalized * gy, axis).astype(dtype, copy=False)
    if 1 in indexes:
        grads.append(g_gamma)
    if 2 in indexes:
        grads.append(g_beta)
    if 3 in indexes:
        grads.append(-scale * g_beta)
    if 4 in indexes:
        # compat: (-1/2 / (var + eps)) (gamma g_gamma), Chainer's grouping (NOTE [Chainer's
        # rounding]).
        grads.append((inv_var * dtype.type(-0.5)) * (gamma * g_gamma))
    return grads


class FixedBatchNormalizationGrad(FunctionNode):
    """The gradients of :class:`FixedBatchNormalization`:
    ``(x, gamma, mean, var, gy) -> (gx, ggamma, gbeta, gmean, gvar)``.

    Args:
        eps: The forward's ``eps``.
        axis: The axes its statistics were taken over.
    """

    def __init__(self, eps: float, axis: tuple[int, ...]) -> None:
        self.eps = eps
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 4))
        self.retain_outputs((0, 1, 2, 3, 4))
        x, gamma, mean, var, gy = inputs
        self.inv_var, self.inv_std = _fixed_inverses(backend.get_array_module(x), var,
                                                     self.eps)
        self.gamma_over_std = gamma * self.inv_std
        return tuple(_fixed_gradient_arrays((0, 1, 2, 3, 4), x, gamma, mean, var, gy,
                                            self.axis, self.eps))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With s = (var + eps)^-1/2, n = (x - mean) s and sums over the batch axes:
        # gx = gamma s gy, ggamma = G = sum gy n, gbeta = B = sum gy, gmean = -gamma s B and
        # gvar = -1/2 s^2 gamma G. Given the gradients h of those five, below are the
        # derivatives of sum hx gx + hgamma G + hbeta B + hmean gmean + hvar gvar by each
        # input, with the forward's s and s^2 as constants. Chainer's expressions in Chainer's
        # order, so the second-order gradients round alike.
        x, gamma, mean, gy = self.get_retained_inputs()
        gx, g_gamma, g_beta, g_mean, g_var = self.get_retained_outputs()
        h_x, h_gamma, h_beta, h_mean, h_var = grad_outputs
        xp = backend.get_array_module(x.array)
        gamma_dtype = gamma.dtype
        if h_x is None:
            h_x = xp.zeros(x.shape, x.dtype)
        h_gamma, h_beta, h_mean, h_var = (
            xp.zeros(gamma.shape, gamma.dtype) if h is None else h
            for h in (h_gamma, h_beta, h_mean, h_var))
        if x.dtype != gamma.dtype:
            gamma, g_gamma, h_gamma, g_beta, h_beta, mean, h_mean, h_var = (
                _cast(value, x.dtype)
                for value in (gamma, g_gamma, h_gamma, g_beta, h_beta, mean, h_mean, h_var))
        axis = self.axis
        expander = _expander(x.ndim, axis)
        inv_std, inv_var, gamma_over_std = self.inv_std, self.inv_var, self.gamma_over_std
        normalized = (x - mean[expander]) * inv_std[expander]
        half_h_var = -0.5 * h_var
        gamma_over_var = gamma * inv_var
        by_gamma_over_var = half_h_var * g_gamma
        h_gamma = h_gamma + half_h_var * gamma_over_var
        by_normalized = gy * h_gamma[expander]
        grad_x = inv_std[expander] * by_normalized
        grad_mean = -inv_std * _sum(by_normalized, axis=axis)
        by_gamma_over_std = _sum(h_x * gy, axis=axis) - h_mean * g_beta
        h_beta = h_beta - h_mean * gamma_over_std
        grad_gy = (h_gamma[expander] * normalized + h_beta[expander]
                   + gamma_over_std[expander] * h_x)
        grad_gamma = inv_var * by_gamma_over_var + inv_std * by_gamma_over_std
        grad_var = -(grad_gamma * gamma_over_var + 0.5 * inv_var * (
            _sum(normalized * by_normalized, axis=axis) - gamma_over_std * by_gamma_over_std))
        # Mixed precision: the statistics' gradients back in their own dtype, which Chainer
        # leaves in x's (and its engine rejects).
        return (_cast(grad_x, x.dtype), _cast(grad_gamma, gamma_dtype),
                _cast(grad_mean, gamma_dtype), _cast(grad_var, gamma_dtype),
                _cast(grad_gy, gy.dtype))


def _fixed_inverses(xp: Any, var: Any, eps: float) -> tuple[Any, Any]:
    """``1 / (var + eps)`` and its square root, the inverse standard deviation."""
    # compat: the square root of the reciprocal (not the reciprocal of the square root, which
    # batch_normalization takes), as Chainer computes it (NOTE [Chainer's rounding] in
    # functions/loss/softmax_cross_entropy.py).
    inv_var = xp.reciprocal(var + var.dtype.type(eps))
    return inv_var, xp.sqrt(inv_var)


def batch_normalization(x: Any, gamma: Any, beta: Any, **kwargs: Any) -> variable.Variable:
    """Batch normalization: standardizes ``x`` with the mean and variance of the batch, then
    scales by ``gamma`` and shifts by ``beta``.

    The statistics are taken over the batch axis and every axis after those ``gamma`` spans
    (for a ``(n, c, h, w)`` input and ``gamma`` of shape ``(c,)``: over ``n``, ``h`` and
    ``w``), or over ``axis`` when given.

    Args:
        x: Float input whose axes after the first start with ``gamma``'s shape (or whose axes
            outside ``axis`` have ``gamma``'s shape).
        gamma: Scale; any float dtype (a float16 ``x`` with float32 parameters is normalized
            in float32).
        beta: Shift of ``gamma``'s shape and dtype.
        **kwargs: ``eps`` (2e-5, added to the variance), ``running_mean`` and ``running_var``
            (arrays of ``gamma``'s shape updated in place, or None), ``decay`` (0.9: each
            running value becomes ``decay * old + (1 - decay) * new``, where the new variance
            is the unbiased one, scaled by ``m / (m - 1)`` for ``m`` entries per statistic),
            ``axis`` (int or ascending tuple of ints, or None).

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        ValueError: If ``train`` is given (use ``chainer.using_config('train', ...)``).
        TypeError: On any other unknown keyword.
        RuntimeError: If ``axis`` is neither an int, an ascending sequence of ints nor None.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs, or if the shapes
            of ``gamma`` and ``beta`` differ or do not match ``x``.
    """
    eps, running_mean, running_var, decay, axis = argument.parse_kwargs(
        kwargs, ("eps", 2e-5), ("running_mean", None), ("running_var", None),
        ("decay", 0.9), ("axis", None),
        train="train argument is not supported anymore. Use chainer.using_config")
    node = BatchNormalization(eps, running_mean, running_var, decay, axis)
    return node.apply((x, gamma, beta))[0]


def fixed_batch_normalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                              eps: float = 2e-5, axis: Any = None) -> variable.Variable:
    """Batch normalization with the given statistics instead of the batch's (inference).

    Args:
        x: Float input, as for :func:`batch_normalization`.
        gamma: Scale.
        beta: Shift of ``gamma``'s shape and dtype.
        mean: Mean to subtract, of ``gamma``'s shape and dtype.
        var: Variance to divide by (its square root plus ``eps``), likewise.
        eps: Added to the variance.
        axis: Axes the statistics were taken over, as for :func:`batch_normalization`.

    Returns:
        A Variable of ``x``'s shape and dtype; gradients flow to all five inputs.

    Raises:
        RuntimeError: If ``axis`` is neither an int, an ascending sequence of ints nor None.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs, or if the shapes or
            dtypes of the parameters and statistics differ or do not match ``x``.
    """
    return FixedBatchNormalization(eps, axis).apply((x, gamma, beta, mean, var))[0]
