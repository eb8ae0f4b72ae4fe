"""``batch_normalization`` (statistics of the batch, updating running averages) and
``fixed_batch_normalization`` (given statistics), with their gradients.

Layer 5: imports backend, utils, variable, function_node, type_check, ``functions.array.cast``,
``functions.math`` (sum, average, sqrt) and ``functions.connection.linear``.
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
from chainer_compat.functions.math.average import average as _mean
from chainer_compat.functions.math.sqrt import sqrt as _sqrt
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import argument, type_check
from chainer_compat.variable import Variable, _new_unlinked_variable

# NOTE [batch normalization gradients]
# The gradients are written twice, from the same formulas. When nothing can differentiate or
# observe them (NOTE [gradients without a node] in functions/connection/linear.py) they are
# computed on arrays in one pass, reusing the statistics of the forward; otherwise they are
# composed of differentiable Variable operations that recompute those statistics from x, so
# that the gradient is itself differentiable (double backprop) without hand-written second
# derivatives. Tests compare the two paths.


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
        # The sums behind the statistics run in float32 at least. Chainer's CPU code sums a
        # float16 batch in float16, which saturates (the mean of 4,000 values near 3 comes out
        # 2.5) and overflows to inf from a few thousand values on; ours does not follow it there.
        mean = x.mean(axis=axis, dtype=_accumulation_dtype(dtype)).astype(dtype, copy=False)
        var = x.var(axis=axis, dtype=_accumulation_dtype(dtype)).astype(dtype, copy=False)
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
        axis = self._reduction_axis
        if _may_skip_gradient_nodes(gy):
            return self._gradients_without_nodes(indexes, x, gamma, gy)
        # NOTE [batch normalization gradients]: the differentiable path.
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        count = x.size // gamma.size
        shape = _expanded_shape(x.shape, _kept_axis(x.ndim, axis))
        x_wide, gamma_wide, gy_wide = (_cast(v, dtype) for v in (x, gamma, gy))
        # The forward's statistics recomputed with its rounding (NumPy's mean and var divide
        # sums by the count), so that the first-order gradients equal the array path's when
        # x and gamma share a dtype (with float64 x and float32 gamma, this path computes in
        # float64 where the array path sums in gamma's dtype, as Chainer's does).
        mean = _mean(x_wide, axis=axis, keepdims=True)
        centered = x_wide - mean
        var = _mean(centered * centered, axis=axis, keepdims=True)
        inv_std = 1.0 / _sqrt(var + self.eps)
        normalized = centered * inv_std
        g_beta = _sum(gy_wide, axis=axis)
        g_gamma = _sum(gy_wide * normalized, axis=axis)
        grads: list[Any] = []
        if 0 in indexes:
            projection = (normalized * g_gamma.reshape(shape) + g_beta.reshape(shape)) * (
                1.0 / count)
            gx = gamma_wide.reshape(shape) * inv_std * (gy_wide - projection)
            grads.append(_cast(gx, x.dtype))
        if 1 in indexes:
            grads.append(_cast(g_gamma, gamma.dtype))
        if 2 in indexes:
            grads.append(_cast(g_beta, gamma.dtype))
        return tuple(grads)

    def _gradients_without_nodes(self, indexes: tuple[int, ...], x: Variable, gamma: Variable,
                                 gy: Variable) -> tuple[Variable, ...]:
        """The gradients of :meth:`backward` on arrays, from the forward's statistics."""
        x_array, gamma_array, gy_array = x.array, gamma.array, gy.array
        axis = self._reduction_axis
        count = x_array.size // gamma_array.size
        shape = _expanded_shape(x_array.shape, _kept_axis(x_array.ndim, axis))
        inv_std = self.inv_std.reshape(shape)
        normalized = x_array - self.mean.reshape(shape)
        normalized *= inv_std
        # compat: Chainer sums in gamma's dtype and scales by 1/m rounded to it (NOTE
        # [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
        g_beta = gy_array.sum(axis=axis, dtype=gamma_array.dtype)
        g_gamma = (gy_array * normalized).sum(axis=axis, dtype=gamma_array.dtype)
        x_wants, gamma_wants, gy_wants = (
            v._node._requires_grad for v in (x, gamma, gy))
        grads: list[Variable] = []
        if 0 in indexes:
            # gamma inv_std (gy - (normalized g_gamma + g_beta) / m), in Chainer's order.
            # The difference is a new array, laid out as Chainer's gy - (...) is (as gy, where
            # gy and x differ in layout), so that later reductions over gx (a convolution's
            # weight gradient) add in Chainer's order too (NOTE [Chainer's rounding]).
            projection = normalized * g_gamma.reshape(shape)
            projection += g_beta.reshape(shape)
            projection *= gamma_array.dtype.type(1.0 / count)
            gx = gy_array - projection
            del projection
            gx *= (gamma_array * self.inv_std).reshape(shape)
            grads.append(_new_unlinked_variable(
                gx.astype(x_array.dtype, copy=False), x_wants or gamma_wants or gy_wants))
        if 1 in indexes:
            grads.append(_new_unlinked_variable(
                g_gamma.astype(gamma_array.dtype, copy=False), x_wants or gy_wants))
        if 2 in indexes:
            grads.append(_new_unlinked_variable(
                g_beta.astype(gamma_array.dtype, copy=False), gy_wants))
        return tuple(grads)


class FixedBatchNormalization(FunctionNode):
    """Batch normalization with given statistics. Use :func:`fixed_batch_normalization`.

    Args:
        eps: Added to the variance.
        axis: Axes the statistics were taken over (int, tuple or None for the default).
    """

    def __init__(self, eps: float = 2e-5, axis: Any = None) -> None:
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
        shape = _expanded_shape(x.shape, _kept_axis(x.ndim, axis))
        if _may_skip_gradient_nodes(gy):
            return _fixed_gradients_without_nodes(indexes, x, gamma, mean, var, gy, axis,
                                                  shape, self.eps)
        # NOTE [batch normalization gradients]: the differentiable path.
        dtype = gamma.dtype
        x_wide, gy_wide = _cast(x, dtype), _cast(gy, dtype)
        inv_var = 1.0 / (var + self.eps)  # as _fixed_inverses rounds it
        inv_std = _sqrt(inv_var)
        scale = gamma * inv_std
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(_cast(gy_wide * scale.reshape(shape), x.dtype))
        g_beta = _sum(gy_wide, axis=axis)
        g_gamma = None
        if 1 in indexes or 4 in indexes:
            normalized = (x_wide - mean.reshape(shape)) * inv_std.reshape(shape)
            g_gamma = _sum(gy_wide * normalized, axis=axis)
        if 1 in indexes:
            grads.append(g_gamma)
        if 2 in indexes:
            grads.append(g_beta)
        if 3 in indexes:
            grads.append(-scale * g_beta)
        if 4 in indexes:
            grads.append((inv_var * -0.5) * (gamma * g_gamma))  # as the array path's
        return tuple(grads)


def _fixed_gradients_without_nodes(indexes: tuple[int, ...], x: Variable, gamma: Variable,
                                   mean: Variable, var: Variable, gy: Variable,
                                   axis: tuple[int, ...], shape: tuple[int, ...],
                                   eps: float) -> tuple[Variable, ...]:
    """The gradients of :meth:`FixedBatchNormalization.backward` on arrays."""
    xp = backend.get_array_module(x.array)
    x_array, gamma_array, gy_array = x.array, gamma.array, gy.array
    dtype = gamma_array.dtype
    inv_var, inv_std = _fixed_inverses(xp, var.array, eps)
    scale = gamma_array * inv_std
    x_wants, gamma_wants, mean_wants, var_wants, gy_wants = (
        v._node._requires_grad for v in (x, gamma, mean, var, gy))
    statistics_wants = gamma_wants or var_wants or gy_wants
    grads: list[Variable] = []
    if 0 in indexes:
        gx = (gy_array * scale.reshape(shape)).astype(x_array.dtype, copy=False)
        grads.append(_new_unlinked_variable(gx, statistics_wants))
    g_beta = gy_array.sum(axis=axis, dtype=dtype)
    g_gamma = None
    if 1 in indexes or 4 in indexes:
        normalized = x_array - mean.array.reshape(shape)
        normalized *= inv_std.reshape(shape)
        normalized *= gy_array
        # compat: summed in the product's dtype, as Chainer sums it (NOTE [Chainer's
        # rounding] in functions/loss/softmax_cross_entropy.py).
        g_gamma = normalized.sum(axis=axis).astype(dtype, copy=False)
    moments_wants = x_wants or mean_wants or statistics_wants
    if 1 in indexes:
        grads.append(_new_unlinked_variable(g_gamma, moments_wants))
    if 2 in indexes:
        grads.append(_new_unlinked_variable(g_beta, gy_wants))
    if 3 in indexes:
        grads.append(_new_unlinked_variable(-scale * g_beta, statistics_wants))
    if 4 in indexes:
        # compat: (-1/2 / (var + eps)) (gamma g_gamma), Chainer's grouping (NOTE [Chainer's
        # rounding]).
        grads.append(_new_unlinked_variable(
            (inv_var * dtype.type(-0.5)) * (gamma_array * g_gamma), moments_wants))
    return tuple(grads)


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
