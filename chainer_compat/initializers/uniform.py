"""Uniform initializers: ``Uniform`` and its fan-scaled forms LeCun, Glorot and He.

Imports ``initializer`` and the shared helpers in ``initializers._base``.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import DTypeLike

from chainer_compat.initializers import _base


def _fill_uniform(array: Any, bound: float, rng: Any) -> None:
    """Fills ``array`` with draws from U(-bound, bound), from ``rng`` or the module's RNG."""
    _base.fill_random(array, rng, "uniform", low=-bound, high=bound)


class Uniform(_base.Scaled):
    """Fills an array with independent draws from the uniform distribution on [-scale, scale].

    Args:
        scale: The half-width of the interval.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator with NumPy's ``uniform(low, high, size)`` method
            (``numpy.random.RandomState``, ``cupy.random.RandomState``, ...); None draws from
            the global generator of the array's module.
    """

    def __init__(self, scale: float = 0.05, dtype: DTypeLike | None = None, *,
                 rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)

    def _fill(self, array: Any, spread: float) -> None:
        _fill_uniform(array, spread, self.rng)


class _FanScaledUniform(_base.FanScaled):
    """Uniform on [-s, s] with ``s = scale * sqrt(gain / fan)``."""

    def _fill(self, array: Any, spread: float) -> None:
        _fill_uniform(array, spread, self.rng)


class LeCunUniform(_FanScaledUniform):
    """Uniform on [-s, s] with ``s = scale * sqrt(3 / fan_in)`` (LeCun et al., Efficient BackProp).

    Args:
        scale: Multiplies the half-width.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Uniform`; None uses the global one.
    """

    gain = 3.0


class GlorotUniform(_FanScaledUniform):
    """Uniform on [-s, s] with ``s = scale * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio).

    Args:
        scale: Multiplies the half-width.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Uniform`; None uses the global one.
    """

    gain = 6.0

    def _fan(self, fan_in: int, fan_out: int) -> int:
        return fan_in + fan_out


class HeUniform(_FanScaledUniform):
    """Uniform on [-s, s] with ``s = scale * sqrt(6 / fan_in)`` (He et al., 2015).

    Args:
        scale: Multiplies the half-width.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Uniform`; None uses the global one.
    """

    gain = 6.0
