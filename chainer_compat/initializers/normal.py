"""Gaussian initializers: ``Normal`` and its fan-scaled forms LeCun, Glorot and He.

Imports ``backend``, ``initializer`` and the shared helpers in ``initializers._base``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat import backend
from chainer_compat.initializer import Initializer, get_fans
from chainer_compat.initializers import _base


def _fill_normal(array: Any, scale: float, rng: Any) -> None:
    """Fills ``array`` with draws from N(0, scale^2), from ``rng`` or the array module's RNG."""
    if rng is not None:
        _base.assign(array, rng.normal(loc=0.0, scale=scale, size=array.shape))
        return
    xp = backend.get_array_module(array)
    if xp is numpy:
        # The global NumPy generator, so numpy.random.seed makes runs reproducible as in Chainer.
        array[...] = numpy.random.normal(loc=0.0, scale=scale, size=array.shape)
        return
    options = {}
    if array.dtype in (numpy.float16, numpy.float32):
        # cuRAND cannot draw float16, and float32 draws are all a float32 array can hold.
        options["dtype"] = numpy.float32
    array[...] = xp.random.normal(loc=0.0, scale=scale, size=array.shape, **options)


class Normal(Initializer):
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
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the dtype differs from a set ``dtype``.
        """
        _base.check_dtype(self, array)
        _fill_normal(array, self.scale, self.rng)


class LeCunNormal(Initializer):
    """Gaussian with deviation ``scale * sqrt(1 / fan_in)`` (LeCun et al., Efficient BackProp).

    Fans come from ``initializer.get_fans``, so the array needs at least two dimensions.

    Args:
        scale: Multiplies the standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Normal`; None uses the global one.
    """

    def __init__(self, scale: float = 1.0, dtype: DTypeLike | None = None, *,
                 rng: Any = None) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the array has fewer than two dimensions, or its dtype differs from a
                set ``dtype``.
        """
        _base.check_dtype(self, array)
        fan_in, _ = get_fans(array.shape)
        _fill_normal(array, self.scale * math.sqrt(1.0 / fan_in), self.rng)


class GlorotNormal(Initializer):
    """Gaussian with deviation ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot & Bengio, 2010).

    Args:
        scale: Multiplies the standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Normal`; None uses the global one.
    """

    def __init__(self, scale: float = 1.0, dtype: DTypeLike | None = None, *,
                 rng: Any = None) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the array has fewer than two dimensions, or its dtype differs from a
                set ``dtype``.
        """
        _base.check_dtype(self, array)
        fan_in, fan_out = get_fans(array.shape)
        _fill_normal(array, self.scale * math.sqrt(2.0 / (fan_in + fan_out)), self.rng)


class HeNormal(Initializer):
    """Gaussian with deviation ``scale * sqrt(2 / fan)`` (He et al., 2015).

    Args:
        scale: Multiplies the standard deviation.
        dtype: The dtype arrays must have, or None to accept any.
        fan_option: ``'fan_in'`` or ``'fan_out'``: which fan is ``fan``.
        rng: A random generator as for :class:`Normal`; None uses the global one.
    """

    def __init__(self, scale: float = 1.0, dtype: DTypeLike | None = None,
                 fan_option: str = "fan_in", *, rng: Any = None) -> None:
        self.scale = scale
        self.fan_option = fan_option
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the array has fewer than two dimensions, its dtype differs from a set
                ``dtype``, or ``fan_option`` is neither ``'fan_in'`` nor ``'fan_out'``.
        """
        _base.check_dtype(self, array)
        fan_in, fan_out = get_fans(array.shape)
        # compat: Chainer validates fan_option when filling, not when constructing.
        if self.fan_option == "fan_in":
            fan = fan_in
        elif self.fan_option == "fan_out":
            fan = fan_out
        else:
            raise ValueError(
                f"HeNormal fan_option must be 'fan_in' or 'fan_out', got {self.fan_option!r}")
        _fill_normal(array, self.scale * math.sqrt(2.0 / fan), self.rng)
