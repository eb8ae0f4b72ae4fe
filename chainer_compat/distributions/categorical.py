"""``Categorical``: the distribution over class indices ``0 .. K-1``, with its KL divergence.

Layer 8: imports distribution, functions, utils and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils
from chainer_compat.utils import argument

__all__ = ["Categorical"]


def _sample_indices(xp: Any, p: Any, n: int) -> Any:
    """Draws ``n`` class indices per row of ``p`` (shape ``batch + (K,)``) by inverting the cdf.

    One vectorized draw serves NumPy and CuPy alike, with no loop over the batch. It draws what
    Chainer's loop of ``random.choice(K, n, p=row)`` over the rows draws, in the same order:
    the n uniforms of the first row, then those of the next (so a seed gives Chainer's
    samples); ``choice`` inverts the same normalized cdf.
    """
    cumulative = xp.cumsum(p.astype(numpy.float64), axis=-1)
    # Normalize so rounding in the sum cannot leave a gap above the last class.
    cumulative = cumulative / cumulative[..., -1:]
    batch_shape = p.shape[:-1]
    uniform = xp.random.uniform(0.0, 1.0, size=batch_shape + (n,))  # row by row
    uniform = xp.moveaxis(uniform, -1, 0)[..., None]  # (n,) + batch + (1,)
    indices = (uniform >= cumulative).sum(axis=-1)
    return xp.minimum(indices, p.shape[-1] - 1).astype(numpy.int64)


class _ShapeMismatchError(ValueError, IndexError):
    """Class indices whose shape does not broadcast to the batch shape."""


def _select_class(log_p: variable.Variable, x: Any) -> variable.Variable:
    """``log_p[..., x]`` for an index array ``x`` of shape ``sample_shape + batch_shape``."""
    xp = backend.get_array_module(log_p)
    indices = xp.asarray(variable.as_array(x)).astype(numpy.int32)
    batch_shape = log_p.shape[:-1]
    try:
        shape = numpy.broadcast_shapes(indices.shape, batch_shape)
    except ValueError:
        # compat: Chainer indexes with x and raises NumPy's IndexError; this is both.
        raise _ShapeMismatchError(
            f"shape mismatch: indexing arrays could not be broadcast together with shapes "
            f"{batch_shape} {indices.shape}: x must broadcast to the batch shape "
            f"{batch_shape}") from None
    table = F.broadcast_to(log_p, shape + log_p.shape[-1:])
    grid = xp.ix_(*[xp.arange(size) for size in shape]) if shape else ()
    return F.get_item(table, tuple(grid) + (xp.broadcast_to(indices, shape),))


class Categorical(distribution.Distribution):
    """The categorical distribution over the last axis of ``p``.

    Args:
        p: The class probabilities, shape ``batch_shape + (K,)``; give it or ``logit``.
        logit: (keyword only) Unnormalized log-probabilities, normalized by ``log_softmax``.

    Raises:
        ValueError: If neither or both of ``p`` and ``logit`` are given.
    """

    def __init__(self, p: Any = None, **kwargs: Any) -> None:
        super().__init__()
        logit = None
        if kwargs:
            (logit,) = argument.parse_kwargs(kwargs, ("logit", logit))
        if (p is None) == (logit is None):
            given = "both" if p is not None else "neither"
            raise ValueError(f"Categorical must get exactly one of `p` and `logit`, got {given}")
        self._p_input = p
        self._logit_input = logit

    @_cached_property
    def p(self) -> variable.Variable:
        """The class probabilities."""
        if self._p_input is not None:
            return variable.as_variable(self._p_input)
        return F.exp(self.log_p)

    @_cached_property
    def log_p(self) -> variable.Variable:
        """The log class probabilities."""
        if self._p_input is not None:
            return F.log(self.p)
        return F.log_softmax(variable.as_variable(self._logit_input), axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @_cached_property
    def entropy(self) -> variable.Variable:
        return -F.sum(dutils._modified_xlogx(self.p), axis=-1)

    def log_prob(self, x: Any) -> variable.Variable:
        return _select_class(self.log_p, x)

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"p": self.p}

    def sample_n(self, n: int) -> variable.Variable:
        """Draws class indices (int64, not differentiable)."""
        xp = dutils._array_module(self.p)
        return variable.Variable(_sample_indices(xp, self.p.array, n))


@distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(dist1: Categorical, dist2: Categorical) -> variable.Variable:
    return F.sum(dist1.p * (dist1.log_p - dist2.log_p), axis=-1)
