"""Helpers every initializer shares: the dtype check, host/device-safe assignment, default dtype,
random fills, ``Scaled`` and ``FanScaled``, the bases of Normal, Uniform, LeCun, Glorot and He.

Imports only ``configuration`` (layer 0), ``backend`` (layer 1) and ``initializer``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat import backend, configuration
from chainer_compat.initializer import Initializer, get_fans
from chainer_compat.utils._assertions import AssertValueError


class DtypeMismatchError(AssertValueError):
    """Raised when an initializer with a fixed ``dtype`` is given an array of another dtype.

    Compat: Chainer reports this with a bare ``assert``; deriving from ``AssertionError`` too
    keeps code that catches that working, while ``ValueError`` is the documented type here.
    """


def check_dtype(initializer: Any, array: Any) -> None:
    """Raises if ``initializer.dtype`` is set and differs from ``array.dtype``."""
    expected = getattr(initializer, "dtype", None)
    if expected is None or numpy.dtype(expected) == array.dtype:
        return
    expected_name = numpy.dtype(expected).name
    raise DtypeMismatchError(
        f"array dtype must be {expected_name} to match the initializer's dtype, "
        f"got {array.dtype.name}\n"
        f"Initializer: {type(initializer).__name__}\n"
        f"Array shape: {tuple(array.shape)}\n"
        f"Create the array with dtype={expected_name}, or build the initializer with dtype=None.")


def is_ndarray(value: Any) -> bool:
    """Returns whether ``value`` is a NumPy or CuPy array, without importing cupy."""
    if isinstance(value, numpy.ndarray):
        return True
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(value, cupy.ndarray)


def to_host(values: Any) -> Any:
    """Returns ``values`` as a NumPy array (or scalar) when it lives on a GPU."""
    if backend.get_array_module(values) is numpy:
        return values
    return values.get()


def assign(array: Any, values: Any) -> None:
    """Writes ``values`` (broadcast, cast to ``array.dtype``) into ``array``, across devices.

    Random generators and fill values may live on the other side of the host/device line from
    the array being filled; neither NumPy nor CuPy converts implicitly, so this does.
    """
    xp = backend.get_array_module(array)
    if xp is numpy:
        values = to_host(values)
    elif isinstance(values, numpy.ndarray):
        values = xp.asarray(values)
    # compat: an array (not a Python float) casts unsafely, as in Chainer: the NaN that fills a
    # parameter before initialization becomes an integer parameter's minimum, with NumPy's
    # RuntimeWarning, instead of raising.
    array[...] = xp.asarray(values)


def get_dtype(dtype: DTypeLike | None = None) -> numpy.dtype:
    """Returns ``numpy.dtype(dtype)``, or the configured ``config.dtype`` when ``dtype`` is None.

    Compat: Chainer's ``mixed16`` mode allocates float16 parameters, so it maps to float16 here.
    """
    return configuration.get_dtype(dtype)


def fill_random(array: Any, rng: Any, distribution: str, **parameters: Any) -> None:
    """Fills ``array`` in place with draws of ``distribution``, e.g. ``'normal'`` or ``'uniform'``.

    Args:
        array: The NumPy or CuPy array to overwrite.
        rng: A generator with a method named ``distribution``, or None for the global generator
            of the array's module.
        distribution: The name of the generator method to draw with.
        **parameters: Keywords of that method besides ``size`` (``loc``, ``scale``, ...).
    """
    if rng is not None:
        assign(array, getattr(rng, distribution)(size=array.shape, **parameters))
        return
    xp = backend.get_array_module(array)
    if xp is numpy:
        # The global NumPy generator, so numpy.random.seed makes runs reproducible as in Chainer.
        array[...] = getattr(numpy.random, distribution)(size=array.shape, **parameters)
        return
    if array.dtype in (numpy.float16, numpy.float32):
        # cuRAND cannot draw float16, and float32 draws are all a float32 array can hold.
        parameters["dtype"] = numpy.float32
    array[...] = getattr(xp.random, distribution)(size=array.shape, **parameters)


class Scaled(Initializer):
    """Base of the initializers that draw from a distribution whose spread ``scale`` sets.

    A subclass implements ``_fill`` to draw with a given spread; the spread is ``scale`` unless
    the subclass overrides ``_spread``.

    Args:
        scale: The spread, or what multiplies it.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator for ``_fill``; None uses the global one.
    """

    def __init__(self, scale: float, dtype: DTypeLike | None = None, *,
                 rng: Any = None) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If the dtype differs from a set ``dtype``; for :class:`FanScaled`, also
                if the array has fewer than two dimensions or ``_fan`` rejects a setting
                (``HeNormal``'s ``fan_option``).
        """
        check_dtype(self, array)
        self._fill(array, self._spread(array))

    def _spread(self, array: Any) -> float:
        return self.scale

    def _fill(self, array: Any, spread: float) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} must implement _fill(array, spread), got the Scaled base")


class FanScaled(Scaled):
    """Base of the initializers whose spread is ``scale * sqrt(gain / fan)``.

    A subclass sets ``gain``, overrides ``_fan`` when ``fan`` is not ``fan_in``, and implements
    ``_fill`` to draw from its distribution with the computed spread.

    Args:
        scale: Multiplies the spread.
        dtype: The dtype arrays must have, or None to accept any.
        rng: A random generator for ``_fill``; None uses the global one.
    """

    gain: float = 1.0

    def __init__(self, scale: float = 1.0, dtype: DTypeLike | None = None, *,
                 rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)

    def _spread(self, array: Any) -> float:
        return self._spread_for(array.shape)

    def _spread_for(self, shape: tuple[int, ...]) -> float:
        fan_in, fan_out = get_fans(shape)
        return self.scale * math.sqrt(self.gain / self._fan(fan_in, fan_out))

    def _check_shape(self, shape: tuple[int, ...]) -> None:
        self._spread_for(shape)

    def _fan(self, fan_in: int, fan_out: int) -> int:
        """Returns ``fan`` in the spread formula: ``fan_in`` unless a subclass says otherwise."""
        return fan_in
