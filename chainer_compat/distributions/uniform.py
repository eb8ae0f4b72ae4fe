"""``Uniform``: the continuous uniform distribution on ``[low, high]``, with its KL divergence.

Layer 8: imports backend, distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils
from chainer_compat.utils import argument

__all__ = ["Uniform"]


class Uniform(distribution.Distribution):
    """The uniform distribution on ``[low, high]``, also given as ``loc = low``, ``scale =
    high - low``.

    All arguments are keywords: give ``low`` and ``high``, or ``loc`` and ``scale``.

    Raises:
        ValueError: If neither pair, or both, is given.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        low, high, loc, scale = argument.parse_kwargs(
            kwargs, ("low", None), ("high", None), ("loc", None), ("scale", None))
        self._use_low_high = low is not None and high is not None
        self._use_loc_scale = loc is not None and scale is not None
        if self._use_low_high == self._use_loc_scale:
            given = [name for name, value in
                     (("low", low), ("high", high), ("loc", loc), ("scale", scale))
                     if value is not None]
            raise ValueError("Uniform must get either `low` and `high` or `loc` and `scale` "
                             f"(not both), got {given}")
        self._inputs = {"low": low, "high": high, "loc": loc, "scale": scale}

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)  # Chainer's _Uniform__low becomes _low_input: gather them
        if "_inputs" not in self.__dict__:
            self._inputs = {name: self.__dict__.pop(f"_{name}_input", None)
                            for name in ("low", "high", "loc", "scale")}

    @_cached_property
    def low(self) -> variable.Variable:
        """The lower bound."""
        if self._use_low_high:
            return variable.as_variable(self._inputs["low"])
        return self.loc

    @_cached_property
    def high(self) -> variable.Variable:
        """The upper bound."""
        if self._use_low_high:
            return variable.as_variable(self._inputs["high"])
        return self.loc + self.scale

    @_cached_property
    def loc(self) -> variable.Variable:
        """The lower bound, as a location."""
        if self._use_loc_scale:
            return variable.as_variable(self._inputs["loc"])
        return self.low

    @_cached_property
    def scale(self) -> variable.Variable:
        """The width ``high - low``."""
        if self._use_loc_scale:
            return variable.as_variable(self._inputs["scale"])
        return self.high - self.low

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.low.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    def cdf(self, x: Any) -> variable.Variable:
        return F.clip((x - self.loc) / self.scale, 0.0, 1.0)

    def icdf(self, x: Any) -> variable.Variable:
        return x * self.scale + self.loc

    def log_prob(self, x: Any) -> variable.Variable:
        x = variable.as_variable(x)
        xp = backend.get_array_module(x)
        log_density = F.broadcast_to(-F.log(self.scale), x.shape)
        inside = xp.asarray((x.array >= self.low.array) & (x.array <= self.high.array))
        return F.where(inside, log_density, dutils._fill(xp, log_density, -xp.inf))

    @_cached_property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale)

    @_cached_property
    def mean(self) -> variable.Variable:
        return (self.high + self.low) / 2

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.scale ** 2 / 12

    @_cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @property
    def params(self) -> dict[str, variable.Variable]:
        if self._use_low_high:
            return {"low": self.low, "high": self.high}
        return {"loc": self.loc, "scale": self.scale}

    @property
    def support(self) -> str:
        return "[low, high]"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``loc + scale * u`` (reparameterized: differentiable in the parameters)."""
        xp = dutils._array_module(self.low)
        eps = dutils._draw(xp, "uniform", self.low.dtype, 0.0, 1.0, (n,) + self.low.shape)
        return self.icdf(eps)


@distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1: Uniform, dist2: Uniform) -> variable.Variable:
    xp = backend.get_array_module(dist1.low)
    # Where dist1 puts mass outside dist2's support the divergence is infinite.
    outside = xp.asarray((dist1.high.array > dist2.high.array)
                         | (dist1.low.array < dist2.low.array))
    kl = F.log(dist2.high - dist2.low) - F.log(dist1.high - dist1.low)
    return F.where(outside, dutils._fill(xp, kl, xp.inf), kl)
