"""``Gamma``: the gamma distribution with shape ``k`` and scale ``theta``, with its KL divergence.

Layer 8: imports backend, distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Gamma"]


class Gamma(distribution.Distribution):
    """The gamma distribution with density ``x^(k-1) exp(-x/theta) / (Gamma(k) theta^k)``.

    Args:
        k: The shape (positive).
        theta: The scale (positive).
    """

    def __init__(self, k: Any, theta: Any) -> None:
        super().__init__()
        self._k_input = k
        self._theta_input = theta

    @_cached_property
    def k(self) -> variable.Variable:
        """The shape."""
        return variable.as_variable(self._k_input)

    @_cached_property
    def theta(self) -> variable.Variable:
        """The scale."""
        return variable.as_variable(self._theta_input)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.k.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @_cached_property
    def entropy(self) -> variable.Variable:
        k = self.k
        return k + F.log(self.theta) + F.lgamma(k) + (1 - k) * F.digamma(k)

    def log_prob(self, x: Any) -> variable.Variable:
        k, theta = self.k, self.theta
        log_density = -F.lgamma(k) - k * F.log(theta) + (k - 1) * F.log(x) - x / theta
        xp = backend.get_array_module(log_density)
        inside = xp.asarray(variable.as_array(x) >= 0)
        return F.where(inside, log_density, dutils._fill(xp, log_density, -xp.inf))

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.k * self.theta

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.mean * self.theta

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"k": self.k, "theta": self.theta}

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``theta * g`` with ``g ~ Gamma(k, 1)``: differentiable in ``theta`` only."""
        xp = dutils._array_module(self.k)
        shape = (n,) + self.batch_shape
        eps = dutils._draw(xp, "gamma", self.k.dtype, self.k.array, size=shape)
        return F.broadcast_to(self.theta, shape) * eps


@distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1: Gamma, dist2: Gamma) -> variable.Variable:
    return ((dist1.k - dist2.k) * F.digamma(dist1.k) - F.lgamma(dist1.k) + F.lgamma(dist2.k)
            + dist2.k * (F.log(dist2.theta) - F.log(dist1.theta))
            + dist1.k * (dist1.theta / dist2.theta - 1))
