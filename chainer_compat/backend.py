"""Array-module dispatch and devices; never imports cupy unless the user already did.

Layer 1: imports only from layer 0.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy

_cupy_ndarray_type: type | None = None


def _cupy_ndarray() -> type | None:
    """Returns ``cupy.ndarray`` if the user imported cupy, else None, without importing it."""
    global _cupy_ndarray_type
    if _cupy_ndarray_type is None:
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            _cupy_ndarray_type = getattr(cupy, "ndarray", None)
    return _cupy_ndarray_type


def is_cupy_array(x: Any) -> bool:
    """Returns whether ``x`` is a CuPy array, without importing cupy."""
    cls = _cupy_ndarray()
    return cls is not None and isinstance(x, cls)


def get_array_module(*args: Any) -> ModuleType:
    """Returns cupy if any argument is (or wraps) a CuPy array, else numpy."""
    cls = _cupy_ndarray()
    if cls is not None:
        for arg in args:
            arr = getattr(arg, "array", arg) if not isinstance(arg, numpy.ndarray) else arg
            if isinstance(arr, cls):
                return sys.modules["cupy"]
    return numpy
