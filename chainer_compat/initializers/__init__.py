"""Weight initializers, ``generate_array`` and the initializer normalization links use.

Imports ``configuration`` and ``backend`` (layers 0-1), ``initializer`` and its own submodules.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat import backend
from chainer_compat.initializers import constant, normal, orthogonal, sampling, uniform
from chainer_compat.initializers._base import get_dtype, is_ndarray
from chainer_compat.initializers.constant import Constant, Identity, NaN, One, Zero
from chainer_compat.initializers.normal import GlorotNormal, HeNormal, LeCunNormal, Normal
from chainer_compat.initializers.orthogonal import Orthogonal
from chainer_compat.initializers.sampling import DownsamplingConvFilter, UpsamplingDeconvFilter
from chainer_compat.initializers.uniform import GlorotUniform, HeUniform, LeCunUniform, Uniform

__all__ = [
    "Constant",
    "DownsamplingConvFilter",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "LeCunNormal",
    "LeCunUniform",
    "NaN",
    "Normal",
    "One",
    "Orthogonal",
    "Uniform",
    "UpsamplingDeconvFilter",
    "Zero",
    "constant",
    "generate_array",
    "normal",
    "orthogonal",
    "sampling",
    "uniform",
]


def generate_array(initializer: Any, shape: int | Sequence[int], xp: ModuleType,
                   dtype: DTypeLike | None = None, device: Any = None) -> Any:
    """Allocates an array and fills it with ``initializer``.

    The dtype is ``dtype`` if given, else ``initializer.dtype`` if set, else
    ``chainer.config.dtype`` (float32 unless configured otherwise).

    Args:
        initializer: Any callable that fills an array in place, usually an ``Initializer``.
        shape: The shape of the new array.
        xp: ``numpy`` or ``cupy``: the module that allocates the array.
        dtype: The dtype of the new array; must agree with ``initializer.dtype`` when both are
            set.
        device: A device specifier (see ``chainer.get_device``) to allocate on; None uses
            the current device of ``xp``.

    Returns:
        The filled NumPy or CuPy array.

    Raises:
        ValueError: If ``dtype`` and ``initializer.dtype`` disagree, or ``device`` is not a
            device of ``xp``.
    """
    initializer_dtype = getattr(initializer, "dtype", None)
    if dtype is None:
        dtype = initializer_dtype
    elif initializer_dtype is not None and get_dtype(dtype) != get_dtype(initializer_dtype):
        raise ValueError(
            f"dtype must match the initializer's dtype {get_dtype(initializer_dtype).name}, "
            f"got {get_dtype(dtype).name}\n"
            f"Initializer: {type(initializer).__name__}\n"
            "Pass dtype=None to use the initializer's dtype.")
    dtype = get_dtype(dtype)

    context: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
    if device is not None:
        # Looked up per call: the device layer lives in backend, which other modules extend.
        backend_device = backend.get_device(device)
        device_xp = getattr(backend_device, "xp", xp)
        if device_xp is not xp:
            raise ValueError(
                f"device must belong to the array module {xp.__name__}, got {backend_device} "
                f"(a {device_xp.__name__} device); pass matching xp and device")
        create_context = getattr(backend_device, "create_context", None)
        if create_context is not None:
            context = create_context()
    with context:
        array = xp.empty(shape, dtype=dtype)
    initializer(array)
    return array


def _get_initializer(initializer: Any) -> Any:
    """Turns what a link accepts as an initializer into a callable that fills an array.

    None gives the default ``LeCunNormal()``; a scalar or a NumPy/CuPy array gives a
    ``Constant``; any other callable is returned unchanged.

    Raises:
        TypeError: If ``initializer`` is none of these.
    """
    if initializer is None:
        return LeCunNormal()
    if numpy.isscalar(initializer) or is_ndarray(initializer):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(
            "initializer must be None, a scalar, an array or a callable that fills an array, "
            f"got {type(initializer).__name__}")
    return initializer
