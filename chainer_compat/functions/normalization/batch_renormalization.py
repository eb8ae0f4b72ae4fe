"""``batch_renormalization`` (batch statistics corrected towards the running ones), its callable
``BatchRenormalizationFunction``, and the deprecated ``fixed_batch_renormalization``.

Layer 5: imports backend, configuration, variable, function_node, type_check and ``functions``.
One node labelled as Chainer's old-style Function, with its arithmetic; its gradients follow
NOTE [old-style gradients] in functions/_old_style.py.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.configuration import using_config
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    gradients_with_values,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.functions.normalization._common import check_eps
from chainer_compat.functions.normalization.batch_normalization import (
    _batch_statistics,
    fixed_batch_normalization,
)
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class _BatchRenormalization(FunctionNode):
    """``gamma * (x_hat * r + d) + beta`` for :class:`BatchRenormalizationFunction`, whose
    settings and results (``r``, ``d``) it shares."""

    def __init__(self, owner: BatchRenormalizationFunction) -> None:
        self.owner = owner

    @property
    def label(self) -> str:
        return "BatchRenormalizationFunction"

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 3)
        x_type, gamma_type, beta_type = in_types
        gamma_ndim = type_check.eval(gamma_type.ndim)
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= gamma_type.ndim + 1,
            x_type.shape[1:1 + gamma_ndim] == gamma_type.shape,
            gamma_type.dtype.kind == "f",
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        owner = self.owner
        xp = backend.get_array_module(x)
        self.expander = (None, Ellipsis) + (None,) * (x.ndim - gamma.ndim - 1)
        self.axis = (0,) + tuple(range(gamma.ndim + 1, x.ndim))
        expander = self.expander
        # compat: Chainer's CPU arithmetic, one operation at a time (NOTE [Chainer's rounding]
        # in functions/loss/softmax_cross_entropy.py), with the statistics in gamma's dtype
        # (NOTE [float16 statistics] in batch_normalization.py).
        mean, var = _batch_statistics(xp, x, self.axis, gamma.dtype)
        self.std = xp.sqrt(var + owner.eps, dtype=var.dtype)
        running_mean, running_var = owner._running_mean, owner._running_var
        running_sigma = xp.sqrt(running_var + owner.eps, dtype=running_mean.dtype)
        owner.r = self.r = xp.clip(self.std / running_sigma, 1.0 / owner.rmax, owner.rmax)
        owner.d = self.d = d = xp.clip((mean - running_mean) / running_sigma, -owner.dmax,
                                       owner.dmax)
        self.normalized = x - mean[expander]
        self.normalized /= self.std[expander]
        self.renormalized = self.normalized * self.r[expander] + d[expander]
        y = gamma[expander] * self.renormalized
        y += beta[expander]
        if owner.update_statistics:
            count = x.size // gamma.size
            running_mean *= owner.decay
            running_mean += mean * (1 - owner.decay)
            running_var *= owner.decay
            # Bessel's correction: the running variance estimates the population's.
            running_var += var * ((1 - owner.decay) * (count / max(count - 1.0, 1.0)))
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        arrays = self._gradient_arrays(x, gamma, gy)
        if records_a_graph():
            return gradients_with_values(
                self._differentiable_gradients(indexes, x, gamma, gy), arrays, indexes)
        return gradients_without_graph(arrays, indexes)

    def _gradient_arrays(self, x: Any, gamma: Any, gy: Any) -> tuple[Any, ...]:
        """The gradients of x, gamma and beta on arrays, in Chainer's arithmetic."""
        gamma_array, gy_array = gamma.array, gy.array
        expander, axis = self.expander, self.axis
        count = gamma_array.dtype.type(x.size // gamma.size)
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        g_beta = sum_in_numpy1_order(gy_array, axis, gamma_array.dtype)
        g_gamma = sum_in_numpy1_order(gy_array * self.renormalized, axis)
        g_std = sum_in_numpy1_order(gy_array * self.normalized, axis)
        scale = (self.r * gamma_array / self.std)[expander]
        gx = scale * (gy_array - (self.normalized * g_std[expander] + g_beta[expander]) / count)
        return (gx.astype(x.dtype, copy=False), g_gamma.astype(gamma.dtype, copy=False),
                g_beta)

    def _differentiable_gradients(self, indexes: tuple[int, ...], x: Any, gamma: Any,
                                  gy: Any) -> tuple[Any, ...]:
        """The gradients of :meth:`backward` as functions of ``x``, ``gamma`` and ``gy`` (NOTE
        [old-style gradients]), the batch statistics recomputed from ``x``; ``r`` and ``d``
        stay constants, as in the first order."""
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.array.cast import cast
        from chainer_compat.functions.array.reshape import reshape
        from chainer_compat.functions.math.average import average
        from chainer_compat.functions.math.sqrt import sqrt
        from chainer_compat.functions.math.sum import sum as _sum

        xp = backend.get_array_module(x.array)
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        expanded = (1,) + gamma.shape + (1,) * (x.ndim - gamma.ndim - 1)

        def widen(v: Any) -> Any:
            return broadcast_to(reshape(v, expanded), x.shape)

        def constant(array: Any) -> Any:
            return xp.broadcast_to(array[self.expander], x.shape).astype(dtype)

        x_wide = cast(x, dtype)
        mean = average(x_wide, axis=self.axis, keepdims=True)
        centered = x_wide - broadcast_to(mean, x.shape)
        var = average(centered * centered, axis=self.axis, keepdims=True)
        std = broadcast_to(sqrt(var + self.owner.eps), x.shape)
        normalized = centered / std
        gy_wide = cast(gy, dtype)
        count = x.size // gamma.size
        g_beta = _sum(gy_wide, axis=self.axis)
        g_gamma = _sum(gy_wide * (normalized * constant(self.r) + constant(self.d)),
                       axis=self.axis)
        g_std = _sum(gy_wide * normalized, axis=self.axis)
        scale = constant(self.r) * widen(cast(gamma, dtype)) / std
        gx = scale * (gy_wide - (normalized * widen(g_std) + widen(g_beta)) * (1.0 / count))
        all_grads = (cast(gx, x.dtype), cast(g_gamma, gamma.dtype), cast(g_beta, gamma.dtype))
        return tuple(all_grads[index] for index in indexes)


class BatchRenormalizationFunction:
    """Batch renormalization with given running statistics. Use
    :func:`batch_renormalization`.

    Compat: Chainer's is an old-style ``Function``, called as ``BatchRenormalizationFunction(
    eps, mean, var, decay, rmax, dmax, update_statistics)(x, gamma, beta)``; calling an
    instance works the same here. The output's creator is a node labelled as this class, not
    this object; unlike Chainer's, its gradients can be differentiated again.

    Args:
        eps: Added to the variances.
        mean: Running mean, of ``gamma``'s shape (required to call).
        var: Running variance, of ``gamma``'s shape (required to call).
        decay: Weight of the old running values when they are updated.
        rmax: Upper bound of ``r`` (and ``1 / rmax`` its lower bound).
        dmax: Bound of ``|d|``.
        update_statistics: Whether a call updates ``mean`` and ``var`` in place.

    Attributes:
        r: After a call, the scale correction ``r`` (an array of ``gamma``'s shape).
        d: After a call, the shift correction ``d``.
    """

    label = "BatchRenormalizationFunction"

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, rmax: float = 1, dmax: float = 0,
                 update_statistics: bool = True) -> None:
        check_eps(eps, "batch_renormalization")
        self._running_mean = mean
        self._running_var = var
        self.eps = eps
        self.decay = decay
        self.rmax = rmax
        self.dmax = dmax
        self.update_statistics = update_statistics
        self.r: Any = None
        self.d: Any = None

    def _warn_deprecated_statistics(self) -> None:
        warnings.warn(
            "the running statistics attributes of BatchRenormalizationFunction are "
            "deprecated; pass update_statistics=True to batch_renormalization to have it "
            "update running_mean and running_var in place", DeprecationWarning, stacklevel=1)

    @property
    def running_mean(self) -> Any:
        """The running mean given to the constructor (deprecated)."""
        self._warn_deprecated_statistics()
        return self._running_mean

    @property
    def running_var(self) -> Any:
        """The running variance given to the constructor (deprecated)."""
        self._warn_deprecated_statistics()
        return self._running_var

    def __call__(self, x: Any, gamma: Any, beta: Any) -> variable.Variable:
        """Renormalizes ``x``; see :func:`batch_renormalization`.

        Raises:
            TypeError: If the running mean or variance is None.
            chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched
                shapes.
        """
        running_mean, running_var = self._running_mean, self._running_var
        if running_mean is None:
            # compat: Chainer's type and wording.
            raise TypeError("running_mean is required")
        if running_var is None:
            raise TypeError("running_var is required")
        y: variable.Variable = _BatchRenormalization(self).apply((x, gamma, beta))[0]
        return y


def batch_renormalization(x: Any, gamma: Any, beta: Any, rmax: float, dmax: float,
                          eps: float = 2e-5, running_mean: Any = None, running_var: Any = None,
                          decay: float = 0.9, update_statistics: bool = False
                          ) -> variable.Variable:
    """Batch renormalization: batch normalization whose batch statistics are corrected
    towards the running ones, so that training and inference outputs agree.

    The output is ``gamma * (x_hat * r + d) + beta``, where ``x_hat`` is ``x`` standardized
    with the batch statistics (as in :func:`batch_normalization`),
    ``r = clip(sigma_batch / sigma_running, 1 / rmax, rmax)`` and
    ``d = clip((mean_batch - mean_running) / sigma_running, -dmax, dmax)``, with both sigmas
    including ``eps``. ``r`` and ``d`` are treated as constants by backprop.

    Args:
        x: Float input of shape ``(N, *gamma.shape, ...)``.
        gamma: Scale.
        beta: Shift of ``gamma``'s shape and dtype.
        rmax: Upper bound of ``r`` (and ``1 / rmax`` its lower bound).
        dmax: Bound of ``|d|``.
        eps: Added to the variances.
        running_mean: Running mean, of ``gamma``'s shape (required).
        running_var: Running variance, of ``gamma``'s shape (required).
        decay: Weight of the old running values when they are updated.
        update_statistics: Whether to update ``running_mean`` and ``running_var`` in place,
            as :func:`batch_normalization` does (the variance with Bessel's correction).

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        TypeError: If ``running_mean`` or ``running_var`` is None.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched
            shapes.

    See: `Batch Renormalization <https://arxiv.org/abs/1702.03275>`_
    """
    if running_mean is None:
        # compat: Chainer's type and wording.
        raise TypeError("running_mean is required")
    if running_var is None:
        raise TypeError("running_var is required")
    return BatchRenormalizationFunction(
        eps, running_mean, running_var, decay, rmax, dmax, update_statistics)(x, gamma, beta)


def fixed_batch_renormalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                                eps: float = 2e-5) -> variable.Variable:
    """Deprecated: batch renormalization at inference is :func:`fixed_batch_normalization`.

    Args:
        x: Float input.
        gamma: Scale.
        beta: Shift.
        mean: Mean to subtract.
        var: Variance to divide by (its square root plus ``eps``).
        eps: Added to the variance.

    Returns:
        ``fixed_batch_normalization(x, gamma, beta, mean, var, eps)``, computed in test mode.

    Warns:
        DeprecationWarning: Always.
    """
    warnings.warn(
        "fixed_batch_renormalization is deprecated. Use fixed_batch_normalization instead.",
        DeprecationWarning, stacklevel=1)
    with using_config("train", False):
        return fixed_batch_normalization(x, gamma, beta, mean, var, eps)

