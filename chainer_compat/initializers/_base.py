"""Helpers every initializer shares: the dtype check, host/device-safe assignment, default dtype.

Imports only ``configuration`` (layer 0), ``backend`` (layer 1) and ``initializer``.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat import backend, configuration


class DtypeMismatchError(ValueError, AssertionError):
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
    array[...] = values


def get_dtype(dtype: DTypeLike | None = None) -> numpy.dtype:
    """Returns ``numpy.dtype(dtype)``, or the configured ``config.dtype`` when ``dtype`` is None.

    Compat: Chainer's ``mixed16`` mode allocates float16 parameters, so it maps to float16 here.
    """
    if dtype is None:
        dtype = configuration.config.dtype
    if (isinstance(dtype, str) and dtype == "mixed16") or getattr(dtype, "name", None) == "mixed16":
        return numpy.dtype(numpy.float16)
    return numpy.dtype(dtype)
