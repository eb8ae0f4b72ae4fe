"""``Laplace``: the Laplace (double exponential) distribution, with its KL divergence.

Layer 8: imports backend, distribution, function_node, functions, utils, variable and the
shared ``_scalar`` base.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from chainer_compat import backend, distribution, function_node, utils, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import _scalar
from chainer_compat.distributions import utils as dutils

__all__ = ["Laplace"]


class LaplaceCDF(function_node.FunctionNode):
    """The standard Laplace cdf ``1/2 + sign(x) (1 - exp(-|x|)) / 2``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        return (utils.force_array(0.5 - 0.5 * xp.sign(x) * xp.expm1(-xp.abs(x)), x.dtype),)

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (grad,) = grad_outputs
        (y,) = self.get_retained_outputs()
        # The density exp(-|x|) / 2 equals min(y, 1 - y).
        return ((0.5 - abs(y - 0.5)) * grad,)


class LaplaceICDF(function_node.FunctionNode):
    """The inverse of :class:`LaplaceCDF`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        centered = 1 - 2 * x
        return (utils.force_array(xp.sign(centered) * xp.log1p(-xp.abs(centered)), x.dtype),)

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (grad,) = grad_outputs
        (x,) = self.get_retained_inputs()
        return (grad / (0.5 - abs(x - 0.5)),)


class Laplace(_scalar.LocationScaleDistribution):
    """The Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc: The location (mean, median and mode).
        scale: The scale (positive).
    """

    def cdf(self, x: Any) -> variable.Variable:
        return LaplaceCDF().apply(((x - self.loc) / self.scale,))[0]

    def icdf(self, x: Any) -> variable.Variable:
        return self.loc + self.scale * LaplaceICDF().apply((x,))[0]

    def log_prob(self, x: Any) -> variable.Variable:
        return -F.log(2 * self.scale) - abs(x - self.loc) / self.scale

    def prob(self, x: Any) -> variable.Variable:
        return 0.5 / self.scale * F.exp(-abs(x - self.loc) / self.scale)

    @_cached_property
    def entropy(self) -> variable.Variable:
        return 1.0 + F.log(2 * self.scale)

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.loc

    @_cached_property
    def mode(self) -> variable.Variable:
        return self.loc

    @_cached_property
    def stddev(self) -> variable.Variable:
        return math.sqrt(2) * self.scale

    @_cached_property
    def variance(self) -> variable.Variable:
        return 2 * self.scale ** 2

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``loc + scale * e`` with ``e ~ Laplace(0, 1)`` (reparameterized)."""
        xp = dutils._array_module(self.loc)
        dtype = numpy.result_type(self.loc.dtype, self.scale.dtype)
        # compat: Chainer rounds the noise to float32 whatever the parameters' dtype.
        eps = dutils._draw(xp, "laplace", numpy.float32, size=(n,) + self.loc.shape)
        eps = eps.astype(dtype, copy=False)
        return self.scale * eps + self.loc


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1: Laplace, dist2: Laplace) -> variable.Variable:
    distance = abs(dist1.loc - dist2.loc)
    return (F.log(dist2.scale) - F.log(dist1.scale) + distance / dist2.scale
            + dist1.scale / dist2.scale * F.exp(-distance / dist1.scale) - 1)
