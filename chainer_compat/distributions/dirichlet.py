"""``Dirichlet``: the Dirichlet distribution over probability vectors, with its KL divergence.

Layer 8: imports distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Dirichlet"]


def _log_multivariate_beta(alpha: Any) -> variable.Variable:
    return F.sum(F.lgamma(alpha), axis=-1) - F.lgamma(F.sum(alpha, axis=-1))


class Dirichlet(distribution.Distribution):
    """The Dirichlet distribution with concentration ``alpha`` over the last axis.

    Args:
        alpha: The concentrations (positive), shape ``batch_shape + (K,)``.
    """

    def __init__(self, alpha: Any) -> None:
        super().__init__()
        self._alpha_input = alpha

    @_cached_property
    def alpha(self) -> variable.Variable:
        """The concentrations."""
        return variable.as_variable(self._alpha_input)

    @_cached_property
    def alpha0(self) -> variable.Variable:
        """The total concentration ``sum(alpha)``."""
        return F.sum(self.alpha, axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.alpha.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.alpha.shape[-1:]

    @_cached_property
    def entropy(self) -> variable.Variable:
        alpha, total = self.alpha, self.alpha0
        return (_log_multivariate_beta(alpha) + (total - self.event_shape[0]) * F.digamma(total)
                - F.sum((alpha - 1) * F.digamma(alpha), axis=-1))

    def log_prob(self, x: Any) -> variable.Variable:
        return (-_log_multivariate_beta(self.alpha)
                + F.sum((self.alpha - 1) * F.log(x), axis=-1))

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.alpha / F.expand_dims(self.alpha0, -1)

    @_cached_property
    def variance(self) -> variable.Variable:
        total = F.expand_dims(self.alpha0, -1)
        return self.alpha * (total - self.alpha) / total ** 2 / (total + 1)

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"alpha": self.alpha}

    @property
    def support(self) -> str:
        return "[0, 1]"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws float32 probability vectors by normalizing gamma draws (not differentiable).

        Compat: the draws are float32 whatever the dtype of ``alpha``, as in Chainer, so
        ``log_prob`` of a float16 or float64 distribution refuses its own samples until they
        are cast to ``alpha.dtype``.
        """
        xp = dutils._array_module(self.alpha)
        rows = self.alpha.array.reshape(-1, self.alpha.shape[-1])
        # compat: Chainer draws the n samples of each row of alpha in turn with
        # random.dirichlet, so a seed gives its samples only drawn that way; and it hard-codes
        # float32 samples.
        draws = [xp.random.dirichlet(row, size=(n,)).astype(numpy.float32) for row in rows]
        if not draws:
            return variable.Variable(xp.zeros((n,) + self.alpha.shape, numpy.float32))
        return variable.Variable(
            xp.stack(draws, axis=1).reshape((n,) + self.alpha.shape))


@distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1: Dirichlet, dist2: Dirichlet) -> variable.Variable:
    expected_log = F.digamma(dist1.alpha) - F.expand_dims(F.digamma(dist1.alpha0), -1)
    return (_log_multivariate_beta(dist2.alpha) - _log_multivariate_beta(dist1.alpha)
            + F.sum((dist1.alpha - dist2.alpha) * expected_log, axis=-1))
