"""``Cauchy``: the Cauchy (Lorentz) distribution, whose mean and variance are undefined.

Layer 8: imports functions, variable and the shared ``_scalar`` base.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from chainer_compat import functions as F
from chainer_compat import variable
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import _scalar
from chainer_compat.distributions import utils as dutils

__all__ = ["Cauchy"]


class Cauchy(_scalar.LocationScaleDistribution):
    """The Cauchy distribution with density ``scale / (pi ((x - loc)^2 + scale^2))``.

    Args:
        loc: The location (median and mode).
        scale: The scale (positive).
    """

    def cdf(self, x: Any) -> variable.Variable:
        return F.arctan((x - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, x: Any) -> variable.Variable:
        return self.loc + self.scale * F.tan((variable.as_variable(x) - 0.5) * math.pi)

    def log_prob(self, x: Any) -> variable.Variable:
        return (-math.log(math.pi) + F.log(self.scale)
                - F.log((x - self.loc) ** 2 + self.scale ** 2))

    @_cached_property
    def entropy(self) -> variable.Variable:
        return F.log(4 * math.pi * self.scale)

    def _undefined(self, name: str) -> variable.Variable:
        warnings.warn(f"{name} of the cauchy distribution is undefined.", RuntimeWarning,
                      stacklevel=3)
        xp = dutils._array_module(self.loc)
        return variable.as_variable(dutils._fill(xp, self.loc, xp.nan))

    @property
    def mean(self) -> variable.Variable:
        """NaN, with a RuntimeWarning: the Cauchy distribution has no mean."""
        return self._undefined("Mean")

    @property
    def variance(self) -> variable.Variable:
        """NaN, with a RuntimeWarning: the Cauchy distribution has no variance."""
        return self._undefined("Variance")

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``loc + scale * c`` with ``c`` standard Cauchy (reparameterized)."""
        xp = dutils._array_module(self.loc)
        eps = dutils._draw(xp, "standard_cauchy", self.loc.dtype, (n,) + self.loc.shape)
        return self.scale * eps + self.loc
