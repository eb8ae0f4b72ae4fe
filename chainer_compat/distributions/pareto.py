"""``Pareto``: the Pareto (power-law) distribution on ``[scale, inf)``, with its KL divergence.

Layer 8: imports backend, distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Pareto"]


class Pareto(distribution.Distribution):
    """The Pareto distribution with density ``alpha scale^alpha / x^(alpha + 1)`` on
    ``x >= scale``.

    Args:
        scale: The lower bound of the support (positive).
        alpha: The shape (positive).
    """

    def __init__(self, scale: Any, alpha: Any) -> None:
        super().__init__()
        self._scale_input = scale
        self._alpha_input = alpha

    @_cached_property
    def scale(self) -> variable.Variable:
        """The lower bound of the support."""
        return variable.as_variable(self._scale_input)

    @_cached_property
    def alpha(self) -> variable.Variable:
        """The shape."""
        return variable.as_variable(self._alpha_input)

    @_cached_property
    def _log_scale(self) -> variable.Variable:
        return F.log(self.scale)

    @_cached_property
    def _log_alpha(self) -> variable.Variable:
        return F.log(self.alpha)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.scale.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    def log_prob(self, x: Any) -> variable.Variable:
        x = variable.as_variable(x)
        log_density = (self._log_alpha + self.alpha * self._log_scale
                       - (self.alpha + 1) * F.log(x))
        xp = backend.get_array_module(log_density)
        inside = xp.asarray(x.array >= self.scale.array)
        return F.where(inside, log_density, dutils._fill(xp, log_density, -xp.inf))

    @_cached_property
    def entropy(self) -> variable.Variable:
        return -self._log_alpha + self._log_scale + 1.0 / self.alpha + 1.0

    @_cached_property
    def mean(self) -> variable.Variable:
        """``alpha scale / (alpha - 1)``, infinite where ``alpha <= 1``."""
        mean = self.alpha * self.scale / (self.alpha - 1)
        xp = backend.get_array_module(mean)
        return F.where(xp.asarray(self.alpha.array > 1), mean, dutils._fill(xp, mean, xp.inf))

    @_cached_property
    def variance(self) -> variable.Variable:
        """Infinite where ``alpha <= 2``."""
        alpha = self.alpha
        variance = self.scale ** 2 * alpha / (alpha - 1) ** 2 / (alpha - 2)
        xp = backend.get_array_module(variance)
        return F.where(xp.asarray(alpha.array > 2), variance,
                       dutils._fill(xp, variance, xp.inf))

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"scale": self.scale, "alpha": self.alpha}

    @property
    def support(self) -> str:
        return "[scale, inf]"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``scale * (1 + l)`` with ``l ~ Lomax(alpha)``: differentiable in ``scale``."""
        xp = dutils._array_module(self.scale)
        eps = dutils._draw(xp, "pareto", self.alpha.dtype, self.alpha.array,
                           (n,) + self.batch_shape)
        return self.scale * (eps + 1)


@distribution.register_kl(Pareto, Pareto)
def _kl_pareto_pareto(dist1: Pareto, dist2: Pareto) -> variable.Variable:
    kl = (dist2.alpha * (dist1._log_scale - dist2._log_scale) + dist1._log_alpha
          - dist2._log_alpha + (dist2.alpha - dist1.alpha) / dist1.alpha)
    xp = backend.get_array_module(kl)
    # dist1 puts mass below dist2's support where its scale is smaller.
    covered = xp.asarray(dist1.scale.array >= dist2.scale.array)
    return F.where(covered, kl, dutils._fill(xp, kl, xp.inf))
