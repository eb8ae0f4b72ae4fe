"""Uniform initializers: ``Uniform`` and its fan-scaled forms LeCun, Glorot and He.

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


def _fill_uniform(array: Any, bound: float, rng: Any) -> None:
    """Fills ``array`` with draws from U(-bound, bound), from ``rng`` or the module's RNG."""
    if rng is not None:
        _base.assign(array, rng.uniform(low=-bound, high=bound, size=array.shape))
        return
    xp = backend.get_array_module(array)
    if xp is numpy:
        # The global NumPy generator, so numpy.random.seed makes runs reproducible as in Chainer.
        array[...] = numpy.random.uniform(low=-bound, high=bound, size=array.shape)
        return
    options = {}
    if array.dtype in (numpy.float16, numpy.float32):
        # cuRAND cannot draw float16, and float32 draws are all a float32 array can hold.
        options["dtype"] = numpy.float32
    array[...] = xp.random.uniform(low=-bound, high=bound, size=array.shape, **options)


class Uniform(Initializer):
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
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the dtype differs from a set ``dtype``.
        """
        _base.check_dtype(self, array)
        _fill_uniform(array, self.scale, self.rng)


class LeCunUniform(Initializer):
    """Uniform on [-s, s] with ``s = scale * sqrt(3 / fan_in)`` (LeCun et al., Efficient BackProp).

    Args:
        scale: Multiplies the half-width.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Uniform`; None uses the global one.
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
        _fill_uniform(array, self.scale * math.sqrt(3.0 / fan_in), self.rng)


class GlorotUniform(Initializer):
    """Uniform on [-s, s] with ``s = scale * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio).

    Args:
        scale: Multiplies the half-width.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Uniform`; None uses the global one.
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
        _fill_uniform(array, self.scale * math.sqrt(6.0 / (fan_in + fan_out)), self.rng)


class HeUniform(Initializer):
    """Uniform on [-s, s] with ``s = scale * sqrt(6 / fan_in)`` (He et al., 2015).

    Args:
        scale: Multiplies the half-width.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator as for :class:`Uniform`; None uses the global one.
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
        _fill_uniform(array, self.scale * math.sqrt(6.0 / fan_in), self.rng)
