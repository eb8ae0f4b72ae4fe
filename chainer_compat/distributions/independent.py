"""``Independent``: reinterprets trailing batch axes of a distribution as event axes.

Layer 8: imports distribution, functions, utils and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import distribution, utils, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property

__all__ = ["Independent"]


class Independent(distribution.Distribution):
    """Treats the last ``reinterpreted_batch_ndims`` batch axes of ``distribution`` as one event.

    Log-probabilities (and the like) are summed, probabilities multiplied, over those axes.

    Args:
        distribution: The base distribution.
        reinterpreted_batch_ndims: How many trailing batch axes become event axes; None for
            all but the first.

    Raises:
        ValueError: If ``reinterpreted_batch_ndims`` exceeds the base's batch dimensions.
    """

    def __init__(self, distribution: distribution.Distribution,
                 reinterpreted_batch_ndims: int | None = None) -> None:
        super().__init__()
        base_batch_shape = distribution.batch_shape
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, len(base_batch_shape) - 1)
        elif reinterpreted_batch_ndims > len(base_batch_shape):
            raise ValueError(
                "reinterpreted_batch_ndims must be at most the number of dimensions of "
                f"distribution.batch_shape ({len(base_batch_shape)}), got "
                f"{reinterpreted_batch_ndims}")
        self._distribution = distribution
        self._reinterpreted_batch_ndims = reinterpreted_batch_ndims
        kept = len(base_batch_shape) - reinterpreted_batch_ndims
        self._batch_shape = base_batch_shape[:kept]
        self._event_shape = base_batch_shape[kept:] + distribution.event_shape

    @property
    def distribution(self) -> distribution.Distribution:
        """The base distribution."""
        return self._distribution

    @property
    def reinterpreted_batch_ndims(self) -> int:
        """How many trailing batch axes of the base are event axes here."""
        return self._reinterpreted_batch_ndims

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._batch_shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self._event_shape

    def _reduce(self, operation: Any, statistic: variable.Variable) -> variable.Variable:
        axes = tuple(range(-self.reinterpreted_batch_ndims, 0))
        return operation(statistic, axis=axes) if axes else statistic

    @property
    def covariance(self) -> variable.Variable:
        """The block-diagonal covariance of the joined event (base event axes flattened)."""
        base = self.distribution
        repeats = utils.size_of_shape(base.batch_shape[len(self.batch_shape):])
        size = utils.size_of_shape(base.event_shape)
        blocks = F.reshape(base.covariance, self.batch_shape + (repeats, size, 1, size))
        xp = self.xp
        # block[..., i, a, j, b] = cov_i[a, b] if i == j else 0.
        selector = xp.eye(repeats, dtype=blocks.dtype).reshape(repeats, 1, repeats, 1)
        shape = self.batch_shape + (repeats, size, repeats, size)
        joined = F.broadcast_to(blocks, shape) * xp.broadcast_to(selector, shape)
        return F.reshape(joined, self.batch_shape + (repeats * size, repeats * size))

    @_cached_property
    def entropy(self) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.entropy)

    def cdf(self, x: Any) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.cdf(x))

    def icdf(self, x: Any) -> variable.Variable:
        raise RuntimeError("Independent.icdf must not be called: the cumulative distribution "
                           "function of a multivariate variable is not invertible")

    def log_cdf(self, x: Any) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.log_cdf(x))

    def log_prob(self, x: Any) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.log_prob(x))

    def log_survival_function(self, x: Any) -> variable.Variable:
        return self._reduce(F.sum, self.distribution.log_survival_function(x))

    def perplexity(self, x: Any) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.perplexity(x))

    def prob(self, x: Any) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.prob(x))

    def survival_function(self, x: Any) -> variable.Variable:
        return self._reduce(F.prod, self.distribution.survival_function(x))

    @property
    def mean(self) -> variable.Variable:
        return self.distribution.mean

    @property
    def mode(self) -> variable.Variable:
        return self.distribution.mode

    @property
    def stddev(self) -> variable.Variable:
        return self.distribution.stddev

    @property
    def variance(self) -> variable.Variable:
        return self.distribution.variance

    @property
    def params(self) -> dict[str, variable.Variable]:
        return self.distribution.params

    @property
    def support(self) -> str:
        return self.distribution.support

    @property
    def xp(self) -> Any:
        return self.distribution.xp

    def sample_n(self, n: int) -> variable.Variable:
        return self.distribution.sample_n(n)


@distribution.register_kl(Independent, Independent)
def _kl_independent_independent(dist1: Independent, dist2: Independent) -> variable.Variable:
    base1, base2 = dist1.distribution, dist2.distribution
    if dist1.event_shape != dist2.event_shape:
        raise ValueError("kl_divergence of Independent distributions must get equal event "
                         f"shapes, got {dist1.event_shape} and {dist2.event_shape}")
    if base1.event_shape != base2.event_shape:
        raise NotImplementedError("kl_divergence of Independent distributions whose base "
                                  "distributions have different event shapes is not supported")
    axes = tuple(range(-(len(dist1.event_shape) - len(base1.event_shape)), 0))
    kl = distribution.kl_divergence(base1, base2)
    return F.sum(kl, axis=axes) if axes else kl
