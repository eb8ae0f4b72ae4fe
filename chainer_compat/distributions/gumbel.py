"""``Gumbel``: the Gumbel (type-I extreme value) distribution, with its KL divergence.

Layer 8: imports distribution, functions, variable and the shared ``_scalar`` base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import _scalar
from chainer_compat.distributions import utils as dutils

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.5772156649015329


class Gumbel(_scalar.LocationScaleDistribution):
    """The Gumbel distribution with cdf ``exp(-exp(-(x - loc) / scale))``.

    Args:
        loc: The location (the mode).
        scale: The scale (positive).
    """

    @_cached_property
    def _log_scale(self) -> variable.Variable:
        return F.log(self.scale)

    def log_prob(self, x: Any) -> variable.Variable:
        standardized = (x - self.loc) / self.scale
        return -self._log_scale - standardized - F.exp(-standardized)

    @_cached_property
    def entropy(self) -> variable.Variable:
        return self._log_scale + (_EULER_GAMMA + 1)

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.loc + _EULER_GAMMA * self.scale

    @_cached_property
    def variance(self) -> variable.Variable:
        return math.pi ** 2 / 6 * self.scale ** 2

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``loc + scale * g`` with ``g ~ Gumbel(0, 1)`` (reparameterized)."""
        xp = dutils._array_module(self.loc)
        eps = dutils._draw(xp, "gumbel", self.loc.dtype, size=(n,) + self.batch_shape)
        return self.scale * eps + self.loc


@distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1: Gumbel, dist2: Gumbel) -> variable.Variable:
    ratio = dist1.scale / dist2.scale
    return (dist2._log_scale - dist1._log_scale + _EULER_GAMMA * (ratio - 1.0)
            + F.exp((dist2.loc - dist1.loc) / dist2.scale + F.lgamma(ratio + 1.0)) - 1
            + (dist1.loc - dist2.loc) / dist2.scale)
