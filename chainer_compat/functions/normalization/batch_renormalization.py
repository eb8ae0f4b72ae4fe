"""``batch_renormalization`` (batch statistics corrected towards the running ones), its callable
``BatchRenormalizationFunction``, and the deprecated ``fixed_batch_renormalization``.

Layer 5: imports backend, configuration, variable and ``functions`` (batch normalization). Built
on the batch normalization node, so gradients are differentiable (double backprop).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.configuration import using_config
from chainer_compat.functions.normalization.batch_normalization import (
    BatchNormalization,
    fixed_batch_normalization,
)


def _corrections(x: Any, gamma: Any, running_mean: Any, running_var: Any, rmax: float,
                 dmax: float, eps: float) -> tuple[Any, Any]:
    """The renormalization factors ``r`` (scale) and ``d`` (shift) of the paper, as arrays.

    They are constants of the graph: no gradient flows through them, as in the paper.
    """
    xp = backend.get_array_module(x)
    axis = (0,) + tuple(range(gamma.ndim + 1, x.ndim))
    # Summed in float32 at least, as batch_normalization's statistics are.
    accumulate = numpy.promote_types(gamma.dtype, numpy.float32)
    mean = x.mean(axis=axis, dtype=accumulate).astype(gamma.dtype, copy=False)
    std = xp.sqrt(x.var(axis=axis, dtype=accumulate).astype(gamma.dtype, copy=False)
                  + gamma.dtype.type(eps))
    running_sigma = xp.sqrt(running_var + running_var.dtype.type(eps))
    r = xp.clip(std / running_sigma, 1.0 / rmax, rmax).astype(gamma.dtype, copy=False)
    d = xp.clip((mean - running_mean) / running_sigma, -dmax, dmax).astype(
        gamma.dtype, copy=False)
    return r, d


class BatchRenormalizationFunction:
    """Batch renormalization with given running statistics. Use
    :func:`batch_renormalization`.

    Compat: Chainer's is an old-style ``Function``, called as ``BatchRenormalizationFunction(
    eps, mean, var, decay, rmax, dmax, update_statistics)(x, gamma, beta)``; calling an
    instance works the same here. The output's creator is the batch normalization node the
    call applies (see :func:`batch_renormalization`), not this object.

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
        x_var, gamma_var, beta_var = (variable.as_variable(v) for v in (x, gamma, beta))
        x_array, gamma_array = x_var.array, gamma_var.array
        # The corrections are computed before the node runs, so its type check runs first.
        BatchNormalization(self.eps)._check_data_type_forward(
            (x_array, gamma_array, beta_var.array))
        self.r, self.d = _corrections(x_array, gamma_array, running_mean, running_var,
                                      self.rmax, self.dmax, self.eps)
        # gamma * (x_hat * r + d) + beta is batch normalization with scale gamma * r and shift
        # gamma * d + beta, so the node's gradients (and their gradients) apply unchanged.
        update = self.update_statistics
        node = BatchNormalization(self.eps, running_mean if update else None,
                                  running_var if update else None, self.decay)
        y: variable.Variable = node.apply(
            (x_var, gamma_var * self.r, gamma_var * self.d + beta_var))[0]
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

