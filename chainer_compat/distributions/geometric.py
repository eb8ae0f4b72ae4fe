"""``Geometric``: the number of Bernoulli trials up to the first success, with its KL divergence.

Layer 8: imports distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Geometric"]


class Geometric(distribution.Distribution):
    """The geometric distribution on ``1, 2, ...`` with mass ``(1 - p)^(x - 1) p``.

    Args:
        p: The success probability of one trial.
    """

    def __init__(self, p: Any) -> None:
        super().__init__()
        self._p_input = p

    @_cached_property
    def p(self) -> variable.Variable:
        """The success probability."""
        return variable.as_variable(self._p_input)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    def log_prob(self, x: Any) -> variable.Variable:
        return (x - 1) * F.log1p(-self.p) + F.log(self.p)

    @_cached_property
    def mean(self) -> variable.Variable:
        return 1 / self.p

    @_cached_property
    def variance(self) -> variable.Variable:
        return (1 - self.p) / self.p ** 2

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"p": self.p}

    @property
    def support(self) -> str:
        return "positive integer"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws trial counts as floats in the dtype of ``p`` (not differentiable)."""
        xp = dutils._array_module(self.p)
        return variable.Variable(dutils._draw(
            xp, "geometric", self.p.dtype, self.p.array, size=(n,) + self.batch_shape))


@distribution.register_kl(Geometric, Geometric)
def _kl_geometric_geometric(dist1: Geometric, dist2: Geometric) -> variable.Variable:
    return ((1 / dist1.p - 1) * (F.log1p(-dist1.p) - F.log1p(-dist2.p))
            + F.log(dist1.p) - F.log(dist2.p))
