"""``Beta``: the beta distribution on ``[0, 1]``, with its KL divergence.

Layer 8: imports backend, distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Beta"]


def _log_beta_function(a: Any, b: Any) -> variable.Variable:
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)


class Beta(distribution.Distribution):
    """The beta distribution with shape parameters ``a`` and ``b``.

    Args:
        a: The first shape parameter (positive).
        b: The second shape parameter (positive).
    """

    def __init__(self, a: Any, b: Any) -> None:
        super().__init__()
        self._a_input = a
        self._b_input = b

    @_cached_property
    def a(self) -> variable.Variable:
        """The first shape parameter."""
        return variable.as_variable(self._a_input)

    @_cached_property
    def b(self) -> variable.Variable:
        """The second shape parameter."""
        return variable.as_variable(self._b_input)

    @_cached_property
    def _a_plus_b(self) -> variable.Variable:
        return self.a + self.b

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.a.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @_cached_property
    def entropy(self) -> variable.Variable:
        a, b, total = self.a, self.b, self._a_plus_b
        return (_log_beta_function(a, b) - (a - 1) * F.digamma(a) - (b - 1) * F.digamma(b)
                + (total - 2) * F.digamma(total))

    def log_prob(self, x: Any) -> variable.Variable:
        x = variable.as_variable(x)
        log_density = ((self.a - 1) * F.log(x) + (self.b - 1) * F.log(1 - x)
                       - _log_beta_function(self.a, self.b))
        xp = backend.get_array_module(log_density)
        inside = xp.asarray((x.array >= 0) & (x.array <= 1))
        return F.where(inside, log_density, dutils._fill(xp, log_density, -xp.inf))

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.a / self._a_plus_b

    @_cached_property
    def variance(self) -> variable.Variable:
        total = self._a_plus_b
        return self.a * self.b / total ** 2 / (total + 1)

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"a": self.a, "b": self.b}

    @property
    def support(self) -> str:
        return "[0, 1]"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws samples (not differentiable)."""
        xp = dutils._array_module(self.a)
        shape = (n,) + self.batch_shape
        return variable.Variable(
            dutils._draw(xp, "beta", self.a.dtype, self.a.array, self.b.array, size=shape))


@distribution.register_kl(Beta, Beta)
def _kl_beta_beta(dist1: Beta, dist2: Beta) -> variable.Variable:
    total1, total2 = dist1._a_plus_b, dist2._a_plus_b
    return (_log_beta_function(dist2.a, dist2.b) - _log_beta_function(dist1.a, dist1.b)
            + (dist1.a - dist2.a) * F.digamma(dist1.a) + (dist1.b - dist2.b) * F.digamma(dist1.b)
            + (total2 - total1) * F.digamma(total1))
