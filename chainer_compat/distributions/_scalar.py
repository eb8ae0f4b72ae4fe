"""Bases of the scalar-event distributions that share a parameterization: a location and a
scale (``Cauchy``, ``Gumbel``, ``Laplace``, ``Normal``), or one positive rate (``Exponential``,
``Poisson``).

Layer 8: imports distribution, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import distribution, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property

__all__: list[str] = []


class LocationScaleDistribution(distribution.Distribution):
    """A real-valued scalar distribution given by a location ``loc`` and a scale ``scale``.

    It owns the parameters, the shapes, ``params`` and ``support``; subclasses add the
    density, the statistics and the sampler, and may derive ``scale`` differently.

    Args:
        loc: The location.
        scale: The scale (positive).
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        super().__init__()
        self._loc_input = loc
        self._scale_input = scale

    @_cached_property
    def loc(self) -> variable.Variable:
        """The location."""
        return variable.as_variable(self._loc_input)

    @_cached_property
    def scale(self) -> variable.Variable:
        """The scale."""
        return variable.as_variable(self._scale_input)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.loc.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"loc": self.loc, "scale": self.scale}

    @property
    def support(self) -> str:
        return "real"


class RateDistribution(distribution.Distribution):
    """A scalar distribution given by one positive rate ``lam``.

    It owns the parameter, its logarithm, the shapes and ``params``; subclasses add the
    density, the statistics, the support and the sampler.

    Args:
        lam: The rate (positive).
    """

    def __init__(self, lam: Any) -> None:
        super().__init__()
        self._lam_input = lam

    @_cached_property
    def lam(self) -> variable.Variable:
        """The rate."""
        return variable.as_variable(self._lam_input)

    @_cached_property
    def _log_lam(self) -> variable.Variable:
        return F.log(self.lam)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.lam.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"lam": self.lam}
