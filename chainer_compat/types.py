"""``chainer.types``: the typing aliases Chainer's annotations use (``NdArray``, ``Shape``,
``DeviceSpec``, ...), for type checkers and for user code that annotates with them.

Layer 0: imports only ``typing`` and numpy; CuPy and ``backend`` are named for type checkers only.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, Union

import numpy

if TYPE_CHECKING:
    # Never imported at run time: a NumPy-only user must not load CuPy, and backend sits above.
    import cupy

    from chainer_compat import backend

__all__ = [
    "AbstractInitializer",
    "CudaDeviceSpec",
    "DTypeSpec",
    "DeviceSpec",
    "InitializerSpec",
    "NdArray",
    "ScalarValue",
    "Shape",
    "ShapeSpec",
    "Xp",
]

# Aliases that name a type imported only for type checkers use typing.Union: ``X | Y`` cannot
# join string forward references at run time.

Shape = tuple[int, ...]
"""The shape of an array: one non-negative size per axis."""

ShapeSpec = int | Sequence[int]
"""A shape as functions accept it: one int for a 1-d shape, or a sequence of ints."""

DTypeSpec = Any
"""Anything ``numpy.dtype`` accepts (a dtype, a scalar type, a type code string)."""

NdArray = Union[numpy.ndarray, "cupy.ndarray"]
"""An array of a backend chainer_compat supports: NumPy, or CuPy on a CUDA device.

Compat: Chainer's alias also names ``chainerx.ndarray``, which chainer_compat does not support.
"""

Xp = Any
"""An array module: ``numpy`` or ``cupy``."""


class AbstractInitializer(Protocol):
    """What an initializer looks like to a type checker: a callable that fills an array in place
    and may say which dtype it wants.

    ``chainer.Initializer`` subclasses and plain functions of one array both fit. This is a
    static protocol only (``isinstance`` against it raises TypeError, as in Chainer).
    """

    dtype: DTypeSpec | None = None

    def __call__(self, array: NdArray) -> None:
        """Fills ``array`` in place."""


ScalarValue = numpy.generic | bytes | str | memoryview | numbers.Number
"""A value ``numpy.isscalar`` accepts."""

InitializerSpec = AbstractInitializer | ScalarValue | numpy.ndarray
"""What links accept as an initializer: an initializer, a scalar to fill with, or an array to
copy."""

DeviceSpec = Union[
    "backend.Device",
    "cupy.cuda.Device",
    str,
    tuple[str, int],
    ModuleType,
    tuple[ModuleType, int],
]
"""What ``chainer.get_device`` accepts: a Device, a ``cupy.cuda.Device``, a name such as
``'@numpy'`` or ``'@cupy:0'``, the ``numpy`` module, or a ``(module, device_id)`` pair.

Compat: Chainer's alias also names ``chainerx.Device``, which chainer_compat does not support.
"""

CudaDeviceSpec = Union["cupy.cuda.Device", int, numpy.integer]
"""What the deprecated ``chainer.cuda.get_device`` accepts; new code uses ``DeviceSpec``."""
