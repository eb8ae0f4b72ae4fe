"""Gaussian initializers: ``Normal`` and its fan-scaled forms LeCun, Glorot and He.

Imports ``initializer`` and the shared helpers in ``initializers._base``.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import DTypeLike

from chainer_compat.initializers import _base


def _fill_normal(array: Any, scale: float, rng: Any) -> None:
    """Fills ``array`` with draws from N(0, scale^2), from ``rng`` or the array module's RNG."""
    _base.fill_random(array, rng, "normal", loc=0.0, scale=scale)


class Normal(_base.Scaled):
    """Fills an array with independent draws from a Gaussian of mean 0 and deviation ``scale``.

    Args:
        scale: The standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator with NumPy's ``normal(loc, scale, size)`` method
            (``numpy.random.RandomState``, ``cupy.random.RandomState``, ...); None draws from
            the global generator of the array's module.
    """

    def __init__(self, scale: float = 0.05, dtype: DTypeLike | None = None, *,
                 rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)

    def _fill(self, array: Any, spread: float) -> None:
        _fill_normal(array, spread, self.rng)


class _FanScaledNormal(_base.FanScaled):
    """A Gaussian of mean 0 and deviation ``scale * sqrt(gain / fan)``."""

    def _fill(self, array: Any, spread: float) -> None:
        _fill_normal(array, spread, self.rng)


class LeCunNormal(_FanScaledNormal):
    """Gaussian with deviation ``scale * sqrt(1 / fan_in)`` (LeCun et al., Efficient BackProp).

    Fans come from ``initializer.get_fans``, so the array needs at least two dimensions.

    Args:
        scale: Multiplies the standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Normal`; None uses the global one.
    """

    gain = 1.0


class GlorotNormal(_FanScaledNormal):
    """Gaussian with deviation ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot & Bengio, 2010).

    Args:
        scale: Multiplies the standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Normal`; None uses the global one.
    """

    gain = 2.0

    def _fan(self, fan_in: int, fan_out: int) -> int:
        return fan_in + fan_out


class HeNormal(_FanScaledNormal):
    """Gaussian with deviation ``scale * sqrt(2 / fan)`` (He et al., 2015).

    Args:
        scale: Multiplies the standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        fan_option: ``'fan_in'`` or ``'fan_out'``: which fan is ``fan``; anything else raises
            ``ValueError`` when an array is filled.
        rng: A random generator as for :class:`Normal`; None uses the global one.
    """

    gain = 2.0

    def __init__(self, scale: float = 1.0, dtype: DTypeLike | None = None,
                 fan_option: str = "fan_in", *, rng: Any = None) -> None:
        self.fan_option = fan_option
        super().__init__(scale, dtype, rng=rng)

    def _fan(self, fan_in: int, fan_out: int) -> int:
        # compat: Chainer validates fan_option when filling, not when constructing.
        if self.fan_option == "fan_in":
            return fan_in
        if self.fan_option == "fan_out":
            return fan_out
        raise ValueError(
            f"HeNormal fan_option must be 'fan_in' or 'fan_out', got {self.fan_option!r}")
