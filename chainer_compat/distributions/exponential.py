"""``Exponential``: the exponential distribution with rate ``lam``, with its KL divergence.

Layer 8: imports backend, distribution, functions, variable and the shared ``_scalar`` base.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import _scalar
from chainer_compat.distributions import utils as dutils

__all__ = ["Exponential"]


class Exponential(_scalar.RateDistribution):
    """The exponential distribution with density ``lam * exp(-lam x)`` on ``x >= 0``.

    Args:
        lam: The rate (positive).
    """

    def cdf(self, x: Any) -> variable.Variable:
        return -F.expm1(-self.lam * x)

    def icdf(self, x: Any) -> variable.Variable:
        return -F.log1p(-variable.as_variable(x)) / self.lam

    def log_prob(self, x: Any) -> variable.Variable:
        log_density = self._log_lam - self.lam * x
        xp = backend.get_array_module(log_density)
        inside = xp.asarray(variable.as_array(x) >= 0)
        return F.where(inside, log_density, dutils._fill(xp, log_density, -xp.inf))

    @_cached_property
    def entropy(self) -> variable.Variable:
        return 1 - self._log_lam

    @_cached_property
    def mean(self) -> variable.Variable:
        return 1 / self.lam

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.mean ** 2

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``e / lam`` with ``e ~ Exponential(1)`` (reparameterized)."""
        xp = dutils._array_module(self.lam)
        eps = dutils._draw(xp, "standard_exponential", self.lam.dtype, (n,) + self.lam.shape)
        return eps / self.lam


@distribution.register_kl(Exponential, Exponential)
def _kl_exponential_exponential(dist1: Exponential, dist2: Exponential) -> variable.Variable:
    return dist1._log_lam - dist2._log_lam + dist2.lam / dist1.lam - 1.0
