"""``Poisson``: the Poisson distribution over counts with rate ``lam``, with its KL divergence.

Layer 8: imports backend, distribution, functions, variable and the shared ``_scalar`` base.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import _scalar
from chainer_compat.distributions import utils as dutils

__all__ = ["Poisson"]


class Poisson(_scalar.RateDistribution):
    """The Poisson distribution with mass ``lam^x exp(-lam) / x!``.

    Args:
        lam: The rate (positive).
    """

    def log_prob(self, x: Any) -> variable.Variable:
        """The log mass at the counts ``x`` (treated as data: no gradient flows to ``x``)."""
        xp = backend.get_array_module(self.lam)
        counts = xp.asarray(variable.as_array(x), dtype=self.lam.dtype)
        # asarray: adding 1 to a 0-dimensional array gives a scalar, which lgamma refuses.
        return counts * self._log_lam - F.lgamma(xp.asarray(counts + 1)) - self.lam

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.lam

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.lam

    @property
    def support(self) -> str:
        return "non negative integer"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws counts as float32 values (not differentiable).

        Compat: the draws are float32 whatever the dtype of ``lam``, as in Chainer;
        ``log_prob`` casts counts to ``lam.dtype``, so it takes them all the same.
        """
        xp = dutils._array_module(self.lam)
        # compat: Chainer hard-codes float32 samples.
        return variable.Variable(dutils._draw(
            xp, "poisson", numpy.float32, self.lam.array, size=(n,) + self.batch_shape))


@distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1: Poisson, dist2: Poisson) -> variable.Variable:
    return dist1.lam * (dist1._log_lam - dist2._log_lam) - dist1.lam + dist2.lam
