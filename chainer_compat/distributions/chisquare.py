"""``Chisquare``: the chi-square distribution with ``k`` degrees of freedom.

Layer 8: imports distribution, functions and variable.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Chisquare"]


class Chisquare(distribution.Distribution):
    """The chi-square distribution: ``Gamma(k / 2, 2)``.

    Args:
        k: The degrees of freedom (positive).
    """

    def __init__(self, k: Any) -> None:
        super().__init__()
        self._k_input = k

    @_cached_property
    def k(self) -> variable.Variable:
        """The degrees of freedom."""
        return variable.as_variable(self._k_input)

    @_cached_property
    def _half_k(self) -> variable.Variable:
        return 0.5 * self.k

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.k.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    def log_prob(self, x: Any) -> variable.Variable:
        half_k = self._half_k
        return (-F.lgamma(half_k) - half_k * math.log(2.0) + (half_k - 1) * F.log(x) - 0.5 * x)

    @_cached_property
    def entropy(self) -> variable.Variable:
        half_k = self._half_k
        return half_k + math.log(2.0) + F.lgamma(half_k) + (1 - half_k) * F.digamma(half_k)

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.k

    @_cached_property
    def variance(self) -> variable.Variable:
        return 2 * self.k

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"k": self.k}

    @property
    def support(self) -> str:
        return "positive"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws samples (not differentiable)."""
        xp = dutils._array_module(self.k)
        return variable.Variable(dutils._draw(
            xp, "chisquare", self.k.dtype, self.k.array, (n,) + self.k.shape))
