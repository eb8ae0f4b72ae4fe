"""``Normal``: the univariate normal (Gaussian) distribution, with its KL divergence.

Layer 8: imports distribution, functions, utils, variable and the shared ``_scalar`` base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import _scalar
from chainer_compat.distributions import utils as dutils
from chainer_compat.utils import argument

__all__ = ["Normal"]

_ENTROPY_CONSTANT = 0.5 * math.log(2 * math.pi * math.e)
_LOG_PROB_CONSTANT = -0.5 * math.log(2 * math.pi)
_PROB_CONSTANT = 1.0 / math.sqrt(2 * math.pi)


class Normal(_scalar.LocationScaleDistribution):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``.

    Args:
        loc: The mean.
        scale: The standard deviation; give it or ``log_scale``, not both.
        log_scale: (keyword only) The logarithm of the standard deviation.

    Raises:
        ValueError: If neither or both of ``scale`` and ``log_scale`` are given.
    """

    def __init__(self, loc: Any, scale: Any = None, **kwargs: Any) -> None:
        log_scale = None
        if kwargs:
            (log_scale,) = argument.parse_kwargs(kwargs, ("log_scale", log_scale))
        if (scale is None) == (log_scale is None):
            given = "both" if scale is not None else "neither"
            raise ValueError(
                f"Normal must get exactly one of `scale` and `log_scale`, got {given}")
        super().__init__(loc, scale)
        self._log_scale_input = log_scale

    @_cached_property
    def scale(self) -> variable.Variable:
        """The standard deviation."""
        if self._scale_input is not None:
            return variable.as_variable(self._scale_input)
        return F.exp(self.log_scale)

    @_cached_property
    def log_scale(self) -> variable.Variable:
        """The logarithm of the standard deviation."""
        if self._log_scale_input is not None:
            return variable.as_variable(self._log_scale_input)
        return F.log(self.scale)

    def _standardize(self, x: Any) -> variable.Variable:
        return (x - self.loc) / self.scale

    def cdf(self, x: Any) -> variable.Variable:
        return F.ndtr(self._standardize(x))

    def log_cdf(self, x: Any) -> variable.Variable:
        return F.log_ndtr(self._standardize(x))

    def survival_function(self, x: Any) -> variable.Variable:
        return F.ndtr(-self._standardize(x))

    def log_survival_function(self, x: Any) -> variable.Variable:
        return F.log_ndtr(-self._standardize(x))

    def icdf(self, x: Any) -> variable.Variable:
        return self.loc + self.scale * F.ndtri(x)

    def log_prob(self, x: Any) -> variable.Variable:
        # compat: the squared distance over the variance, as Chainer divides (not the
        # standardized value squared), so values and gradients round as Chainer's.
        return _LOG_PROB_CONSTANT - self.log_scale - 0.5 * (x - self.loc) ** 2 / self.variance

    def prob(self, x: Any) -> variable.Variable:
        return _PROB_CONSTANT / self.scale * F.exp(-0.5 * self._standardize(x) ** 2)

    @_cached_property
    def entropy(self) -> variable.Variable:
        return self.log_scale + _ENTROPY_CONSTANT

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.loc

    @_cached_property
    def stddev(self) -> variable.Variable:
        return self.scale

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.scale ** 2

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``loc + scale * eps`` (reparameterized: differentiable in the parameters)."""
        xp = dutils._array_module(self.loc)
        eps = dutils._draw(xp, "standard_normal", self.loc.dtype, (n,) + self.loc.shape)
        return self.loc + self.scale * eps


@distribution.register_kl(Normal, Normal)
def _kl_normal_normal(dist1: Normal, dist2: Normal) -> variable.Variable:
    mean_term = (dist1.variance + (dist1.loc - dist2.loc) ** 2) / dist2.variance
    return dist2.log_scale - dist1.log_scale + 0.5 * mean_term - 0.5
