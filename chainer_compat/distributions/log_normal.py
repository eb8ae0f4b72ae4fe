"""``LogNormal``: the distribution of ``exp(y)`` for normal ``y``, with its KL divergence.

Layer 8: imports distribution, functions and variable.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["LogNormal"]

_LOG_PROB_CONSTANT = -0.5 * math.log(2 * math.pi)


class LogNormal(distribution.Distribution):
    """The log-normal distribution: ``log x`` is normal with mean ``mu`` and std ``sigma``.

    Args:
        mu: The mean of ``log x``.
        sigma: The standard deviation of ``log x`` (positive).
    """

    def __init__(self, mu: Any, sigma: Any) -> None:
        super().__init__()
        self._mu_input = mu
        self._sigma_input = sigma

    @_cached_property
    def mu(self) -> variable.Variable:
        """The mean of ``log x``."""
        return variable.as_variable(self._mu_input)

    @_cached_property
    def sigma(self) -> variable.Variable:
        """The standard deviation of ``log x``."""
        return variable.as_variable(self._sigma_input)

    @_cached_property
    def _log_sigma(self) -> variable.Variable:
        return F.log(self.sigma)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.mu.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    def log_prob(self, x: Any) -> variable.Variable:
        log_x = F.log(x)
        return (_LOG_PROB_CONSTANT - self._log_sigma - log_x
                - 0.5 * (log_x - self.mu) ** 2 / self.sigma ** 2)

    @_cached_property
    def entropy(self) -> variable.Variable:
        return 0.5 - _LOG_PROB_CONSTANT + self._log_sigma + self.mu

    @_cached_property
    def mean(self) -> variable.Variable:
        return F.exp(self.mu + 0.5 * self.sigma ** 2)

    @_cached_property
    def variance(self) -> variable.Variable:
        return F.exp(2 * self.mu + self.sigma ** 2) * F.expm1(self.sigma ** 2)

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"mu": self.mu, "sigma": self.sigma}

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``exp(mu + sigma * eps)`` (reparameterized)."""
        xp = dutils._array_module(self.mu)
        eps = dutils._draw(xp, "standard_normal", self.mu.dtype, (n,) + self.mu.shape)
        return F.exp(self.sigma * eps + self.mu)


@distribution.register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1: LogNormal, dist2: LogNormal) -> variable.Variable:
    return (0.5 * ((dist1.mu - dist2.mu) ** 2 + dist1.sigma ** 2) / dist2.sigma ** 2 - 0.5
            + dist2._log_sigma - dist1._log_sigma)
