"""``OneHotCategorical``: the categorical distribution with one-hot vectors as samples.

Layer 8: imports distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils
from chainer_compat.distributions.categorical import _sample_indices

__all__ = ["OneHotCategorical"]


class OneHotCategorical(distribution.Distribution):
    """The categorical distribution whose events are one-hot vectors of length ``K``.

    Args:
        p: The class probabilities, shape ``batch_shape + (K,)``.
    """

    def __init__(self, p: Any) -> None:
        super().__init__()
        self._p_input = p

    @_cached_property
    def p(self) -> variable.Variable:
        """The class probabilities."""
        return variable.as_variable(self._p_input)

    @_cached_property
    def log_p(self) -> variable.Variable:
        """The log class probabilities."""
        return F.log(self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.p.shape[-1:]

    @_cached_property
    def entropy(self) -> variable.Variable:
        return -F.sum(dutils._modified_xlogx(self.p), axis=-1)

    def log_prob(self, x: Any) -> variable.Variable:
        return F.sum(self.log_p * x, axis=-1)

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.p

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.p * (1.0 - self.p)

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"p": self.p}

    def sample_n(self, n: int) -> variable.Variable:
        """Draws one-hot vectors in the dtype of ``p`` (not differentiable)."""
        xp = dutils._array_module(self.p)
        indices = _sample_indices(xp, self.p.array, n)
        eye = xp.eye(self.event_shape[0], dtype=self.p.dtype)
        return variable.Variable(eye[indices])


@distribution.register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical_one_hot_categorical(
        dist1: OneHotCategorical, dist2: OneHotCategorical) -> variable.Variable:
    return F.sum(dist1.p * (dist1.log_p - dist2.log_p), axis=-1)
