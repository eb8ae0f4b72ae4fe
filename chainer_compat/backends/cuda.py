"""Chainer's CUDA module: host/device transfers, device lookup, CuPy kernels and cuDNN switches.

Layer 1: imports numpy, the standard library, ``configuration``, ``backend`` and ``backends._cuda``.
CuPy names (``available``, ``cupy``, ``cuda``, ``ndarray``, ...) resolve on first access through
the module ``__getattr__``, which may import cupy; nothing else here does unless a GPU is asked for.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, NoReturn, Self

import numpy

from chainer_compat import backend
from chainer_compat.backend import GpuDevice, get_array_module
from chainer_compat.backends import _cuda
from chainer_compat.configuration import config

__all__ = [  # the CuPy-backed names resolved by __getattr__ are left out so `import *` stays lazy
    "DummyDevice", "DummyDeviceType", "GpuDevice", "check_cuda_available", "clear_memo", "copy",
    "elementwise", "fuse", "get_array_module", "get_device", "get_device_from_array",
    "get_cudnn_dropout_states", "get_cudnn_dropout_states_core", "get_device_from_id",
    "get_max_workspace_size", "memoize", "raw", "reduce",
    "set_max_workspace_size", "should_use_cudnn", "should_use_cudnn_tensor_core", "to_cpu",
    "to_gpu", "using_allocator",
]

_integer_types = (int, numpy.integer)

# Functions read the lazily resolved names through the module object: a bare global name would
# not reach the module __getattr__ below.
_this = sys.modules[__name__]


def check_cuda_available() -> None:
    """Raises RuntimeError, saying how to install CuPy, unless CUDA is available.

    CUDA is available when CuPy imports and sees at least one CUDA device.
    """
    _cuda.check_available()


# ------------------------------------------------------------------------------------------------
# CuPy names, resolved on first access (PEP 562)
# ------------------------------------------------------------------------------------------------

class _MissingCupy:
    """Stands in for the ``cupy`` module when it does not import: every attribute is missing."""

    def __getattr__(self, name: str) -> NoReturn:
        raise AttributeError(
            f"cupy.{name} is not available because CuPy did not import. {_cuda.INSTALL_HINT}")

    def __repr__(self) -> str:
        return "<cupy (not available)>"


def _missing_class(cupy_path: str) -> type:
    # Real classes, so isinstance() checks against them work (and are always False).
    def refuse(cls: type, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(_cuda.unavailable_message())

    name = cupy_path.rpartition(".")[2]
    return type(name, (), {"__new__": refuse, "__module__": __name__,
                           "__doc__": f"Placeholder for {cupy_path} when CuPy is missing."})


def _cudnn_names(cupy: Any) -> dict[str, Any]:
    disabled_by_user = os.environ.get("CHAINER_CUDNN", "1").strip() == "0"
    # Chainer's CuPy had cupy.cudnn and cupy.cuda.cudnn; CuPy 9-13 keep the binding in
    # cupy_backends, and CuPy 14 has no cuDNN at all.
    try:
        cudnn = importlib.import_module("cupy.cudnn")
        libcudnn = getattr(cupy.cuda, "cudnn", None) or importlib.import_module(
            "cupy_backends.cuda.libs.cudnn")
    except Exception:  # noqa: BLE001 - CuPy without cuDNN (or a CuPy without cupy.cudnn) raises
        return {"cudnn_enabled": False, "cudnn": None, "libcudnn": object()}
    return {"cudnn_enabled": not disabled_by_user, "cudnn": cudnn, "libcudnn": libcudnn}


def _resolve_cupy_names() -> dict[str, Any]:
    cupy = _cuda.cupy_module()
    available = _cuda.is_available()
    names = _real_cupy_names(cupy) if cupy is not None else None
    if names is None:
        names = {
            # compat: a stand-in object so that `xp is cuda.cupy` is always a valid test.
            "cupy": _MissingCupy(), "cupyx": _MissingCupy(),
            "ndarray": _missing_class("cupy.ndarray"), "Device": _missing_class("cupy.cuda.Device"),
            "Event": _missing_class("cupy.cuda.Event"),
            "Stream": _missing_class("cupy.cuda.Stream"),
        }
    names["available"] = available
    if available:
        usable = _cuda.require()
        names.update(_cudnn_names(usable))
        names["memory_pool"] = usable.get_default_memory_pool()
        names["pinned_memory_pool"] = usable.get_default_pinned_memory_pool()
    else:
        names.update(cudnn_enabled=False, cudnn=None, libcudnn=object())
    return names


def _real_cupy_names(cupy: Any) -> dict[str, Any] | None:
    try:
        names = {
            "cupy": cupy, "cupyx": _import_or_missing("cupyx"), "ndarray": cupy.ndarray,
            "cuda": cupy.cuda, "Device": cupy.cuda.Device, "Event": cupy.cuda.Event,
            "Stream": cupy.cuda.Stream,
        }
    except AttributeError:  # a partial install (or a stand-in module): treat CuPy as missing
        return None
    # compat: as in Chainer, cuda.cuda and cuda.cublas exist only when CuPy imports. CuPy 9
    # and later make cupy.cuda.cublas an attribute that loads cupy_backends' binding on first
    # read, with no module of that name to import.
    try:
        names["cublas"] = cupy.cuda.cublas
    except Exception:  # noqa: BLE001 - a CuPy whose CUDA libraries fail to load
        pass
    return names


def _import_or_missing(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - cupyx fails with cupy on a broken install
        return _MissingCupy()


_LAZY_NAMES = frozenset({
    "available", "cudnn_enabled", "cupy", "cupyx", "ndarray", "Device", "Event", "Stream",
    "cudnn", "libcudnn", "memory_pool", "pinned_memory_pool", "cuda", "cublas",
})


_resolve_lock = threading.Lock()


def __getattr__(name: str) -> Any:
    if name not in _LAZY_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _resolve_lock:
        if name in globals():  # another thread resolved the names meanwhile
            return globals()[name]
        names = _resolve_cupy_names()
        # Stored as plain globals, so __getattr__ runs once and later reads cost nothing.
        globals().update(names)
    if name not in names:  # memory pools, cuda and cublas exist only with CuPy (and CUDA)
        if names["available"]:  # CUDA works, but this CuPy's cuBLAS binding did not load
            raise AttributeError(f"cuda.{name} is not available: CuPy's cupy.cuda.{name} "
                                 "did not load; check the CUDA libraries CuPy was built for")
        raise AttributeError(f"cuda.{name} is not available: {_cuda.unavailable_message()}")
    return names[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_NAMES)


def _cupy() -> Any:
    """Returns the cupy module, raising RuntimeError unless CUDA is available."""
    return _cuda.require()


# ------------------------------------------------------------------------------------------------
# The CPU stand-in for a CUDA device
# ------------------------------------------------------------------------------------------------

class DummyDeviceType:
    """The CPU seen through the ``cupy.cuda.Device`` interface: ID -1, and every method a no-op.

    Its only instance is :data:`DummyDevice`; ``get_device_from_id(-1)`` and
    ``get_device_from_array(numpy_array)`` return it, so ``with device:`` works for either kind.

    Compat:
        Chainer derives it from ``cupy.cuda.Device`` when CuPy is installed; this one derives from
        ``object`` so that defining it never imports cupy.
    """

    id = -1

    def __int__(self) -> int:
        return -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def use(self) -> None:
        """Does nothing: the CPU needs no selecting."""

    def synchronize(self) -> None:
        """Does nothing: the CPU has no queue to wait for."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(DummyDeviceType)

    def __repr__(self) -> str:
        return "<DummyDevice (cpu)>"


DummyDevice = DummyDeviceType()


# ------------------------------------------------------------------------------------------------
# Device lookup
# ------------------------------------------------------------------------------------------------

def get_device_from_id(device_id: int | None) -> Any:
    """Returns ``cupy.cuda.Device(device_id)``, or :data:`DummyDevice` for None or a negative ID.

    Raises:
        RuntimeError: If ``device_id`` is non-negative and CUDA is not available.
    """
    if device_id is None or device_id < 0:
        return DummyDevice
    return _cupy().cuda.Device(int(device_id))


def get_device_from_array(*arrays: Any) -> Any:
    """Returns the ``cupy.cuda.Device`` of the first CuPy array in ``arrays``, else DummyDevice.

    Variables are not unwrapped: pass ``variable.array``. Prefer
    :func:`chainer_compat.backend.get_device_from_array`, which returns a backend device.
    """
    for array in arrays:
        if backend.is_cupy_array(array) and array.device is not None:
            return array.device
    return DummyDevice


def get_device(*args: Any) -> Any:
    """Returns the CUDA device of the first integer, CuPy array or device in ``args``.

    Deprecated (as in Chainer): use :func:`get_device_from_id` or :func:`get_device_from_array`.
    Returns :data:`DummyDevice` when no argument names a GPU.
    """
    warnings.warn("get_device is deprecated. Please use get_device_from_id or "
                  "get_device_from_array instead.", DeprecationWarning, stacklevel=1)
    cupy = sys.modules.get("cupy")
    for arg in args:
        if backend._is_integer(arg):
            return _cupy().cuda.Device(int(arg))
        if backend.is_cupy_array(arg):
            if arg.device is not None:
                return arg.device
            continue
        if cupy is not None and isinstance(arg, cupy.cuda.Device):
            return arg
    return DummyDevice


def _cuda_device_or_current(device: Any) -> Any:
    # None and DummyDevice mean "the current CUDA device", as in Chainer's to_gpu.
    cupy = _cupy()
    if device is None or device is DummyDevice:
        return cupy.cuda.Device()
    if isinstance(device, cupy.cuda.Device):
        return device
    if isinstance(device, GpuDevice):
        return device.device
    if backend._is_integer(device) and device >= 0:
        return cupy.cuda.Device(int(device))
    raise ValueError(
        f"Invalid CUDA device specifier: device must be None, a non-negative integer, a "
        f"cupy.cuda.Device or a GpuDevice, got {backend._describe(device)}. Use to_cpu to move "
        f"arrays to the CPU.")


# ------------------------------------------------------------------------------------------------
# Transfers
# ------------------------------------------------------------------------------------------------

def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copies an array, or the arrays in nested lists and tuples, to a CUDA device.

    Args:
        array: A NumPy or CuPy array, a NumPy scalar, None, or a (nested) list or tuple of them.
        device: The target: None or :data:`DummyDevice` for the current CUDA device, an integer
            ID, a ``cupy.cuda.Device`` or a :class:`~chainer_compat.backend.GpuDevice`.
        stream: Deprecated CUDA stream to copy on.

    Returns:
        The same structure with CuPy arrays; arrays already on the device are returned as they
        are, and None stays None.

    Raises:
        RuntimeError: If CUDA is not available.
        TypeError: If an element is not an array or a NumPy scalar.
    """
    if stream is not None:
        warnings.warn("The stream option is deprecated in chainer.backends.cuda.to_gpu. "
                      "Please remove it.", DeprecationWarning, stacklevel=1)
    target = _cuda_device_or_current(device)
    return backend._convert_arrays(
        array, lambda item: backend._array_to_gpu(item, target, stream))


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Copies an array, or the arrays in nested lists and tuples, to the host as NumPy arrays.

    Args:
        array: A NumPy or CuPy array, a scalar, None, or a (nested) list or tuple of them.
        stream: CUDA stream to copy device arrays on.

    Returns:
        The same structure with NumPy arrays; NumPy arrays are returned as they are (no copy),
        scalars become 0-dimensional arrays, and None stays None.

    Raises:
        TypeError: If an element is not an array or a scalar.
    """
    return backend._convert_arrays(array, lambda item: backend._array_to_cpu(item, stream))


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copies a CuPy array, possibly to another CUDA device.

    Args:
        array: The CuPy array to copy.
        out: The destination CuPy array; when given, ``out_device`` is ignored.
        out_device: Where to allocate the copy when ``out`` is None: anything
            :func:`chainer_compat.backend.get_device` accepts for a GPU; ``array``'s device if
            None.
        stream: CUDA stream to copy on.

    Returns:
        The destination array.

    Raises:
        RuntimeError: If CUDA is not available.
    """
    cupy = _cupy()
    if out is None:
        if out_device is None:
            target = array.device
        else:
            device = backend.get_device(out_device)
            if not isinstance(device, GpuDevice):
                raise ValueError(
                    f"copy out_device must name a CUDA device, got {device.name}. Use to_cpu to "
                    f"copy to the CPU.")
            target = device.device
        with cupy.cuda.Device(target.id):  # a fresh instance, as backend._entered_device explains
            out = cupy.empty_like(array)
    if stream is None:
        backend.copyto(out, array)
    else:
        with stream:
            backend.copyto(out, array)
    return out


# ------------------------------------------------------------------------------------------------
# Memoization and kernels
# ------------------------------------------------------------------------------------------------

def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Returns a decorator that caches results per argument (and per device) with ``cupy.memoize``.

    Compat:
        As in Chainer, without CUDA the decorated function is simply called every time: this is
        not a general-purpose cache. The choice is made at call time, and only once cupy has been
        imported, so decorating a function (at import time) never imports cupy.
    """

    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        memoized: Callable[..., Any] | None = None

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal memoized
            if memoized is None:
                if "cupy" not in sys.modules or not _cuda.is_available():
                    return function(*args, **kwargs)
                memoized = _cuda.require().memoize(for_each_device)(function)
            return memoized(*args, **kwargs)

        return wrapper

    return decorator


def clear_memo() -> None:
    """Clears the results cached by :func:`memoize`-decorated functions (a no-op without CUDA)."""
    if "cupy" in sys.modules and _cuda.is_available():
        _cuda.require().clear_memo()


@memoize()
def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> Any:
    """Returns a cached ``cupy.ElementwiseKernel``; arguments as CuPy's, with ``name`` required.

    Raises:
        RuntimeError: If CUDA is not available.
    """
    return _cupy().ElementwiseKernel(in_params, out_params, operation, name, **kwargs)


@memoize()
def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> Any:
    """Returns a cached ``cupy.ReductionKernel``; arguments as CuPy's, with ``name`` required.

    Raises:
        RuntimeError: If CUDA is not available.
    """
    return _cupy().ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr,
                                   identity, name, **kwargs)


@memoize()
def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """Returns a cached ``cupy.RawKernel``; arguments as CuPy's.

    Raises:
        RuntimeError: If CUDA is not available.
    """
    return _cupy().RawKernel(code, name, *args, **kwargs)


def fuse(*args: Any, **kwargs: Any) -> Any:
    """Kernel-fusing decorator: ``cupy.fuse`` on CuPy inputs, the plain function otherwise.

    Usable as ``@fuse`` or ``@fuse(kernel_name=...)``.

    Compat:
        Chainer calls ``cupy.fuse`` at decoration time when CuPy is installed; here it is called
        on the first call with CuPy arrays, so decorating never imports cupy.
    """
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _lazy_fuse(args[0], (), {})
    return lambda function: _lazy_fuse(function, args, kwargs)


def _lazy_fuse(function: Callable[..., Any], args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Callable[..., Any]:
    fused: Callable[..., Any] | None = None

    @functools.wraps(function)
    def wrapper(*call_args: Any, **call_kwargs: Any) -> Any:
        nonlocal fused
        if get_array_module(*call_args) is numpy:
            return function(*call_args, **call_kwargs)
        if fused is None:
            fused = _cuda.require().fuse(*args, **kwargs)(function)
        return fused(*call_args, **call_kwargs)

    return wrapper


def using_allocator(allocator: Any = None) -> Any:
    """Returns ``cupy.cuda.using_allocator(allocator)``: a block with a thread-local allocator.

    Raises:
        RuntimeError: If CUDA is not available.
    """
    return _cupy().cuda.using_allocator(allocator)


# ------------------------------------------------------------------------------------------------
# cuDNN
# ------------------------------------------------------------------------------------------------

def get_max_workspace_size() -> int:
    """Returns the cuDNN workspace size in bytes (0 when cuDNN is not enabled)."""
    return _this.cudnn.get_max_workspace_size() if _this.cudnn_enabled else 0


def set_max_workspace_size(size: int) -> None:
    """Sets the cuDNN workspace size in bytes (ignored when cuDNN is not enabled)."""
    if _this.cudnn_enabled:
        _this.cudnn.set_max_workspace_size(size)


_SHOULD_USE_CUDNN = {
    "==always": {"always": True, "auto": False, "never": False},
    ">=auto": {"always": True, "auto": True, "never": False},
}
_cudnn_version: int | None = None


def _get_cudnn_version() -> int:
    global _cudnn_version
    if _cudnn_version is None:
        _cudnn_version = int(_this.libcudnn.getVersion()) if _this.cudnn_enabled else -1
    return _cudnn_version


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Returns whether to use cuDNN, from ``config.use_cudnn``, its availability and version.

    Args:
        level: ``'==always'`` (only when ``use_cudnn`` is ``'always'``) or ``'>=auto'`` (when
            it is ``'always'`` or ``'auto'``).
        lowest_version: The lowest cuDNN version that will do.

    Raises:
        ValueError: If ``level`` or ``config.use_cudnn`` is not one of the allowed values.
    """
    if _get_cudnn_version() < lowest_version:
        return False
    if level not in _SHOULD_USE_CUDNN:
        raise ValueError(
            f"cuDNN use level must be '==always' or '>=auto', got {level!r}: invalid cuDNN use "
            f"level.")
    flags = _SHOULD_USE_CUDNN[level]
    use_cudnn = config.use_cudnn
    if use_cudnn not in flags:
        raise ValueError(
            f"use_cudnn configuration must be 'always', 'auto' or 'never', got {use_cudnn!r}: "
            f"invalid use_cudnn configuration.")
    return flags[use_cudnn]


_TENSOR_CORE_FLAGS = {"always": True, "auto": None, "never": False}


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Returns whether cuDNN should use Tensor Cores for ``dtype``, from the configuration.

    Raises:
        ValueError: If ``config.use_cudnn_tensor_core`` is not 'always', 'auto' or 'never'.
    """
    setting = config.use_cudnn_tensor_core
    if setting not in _TENSOR_CORE_FLAGS:
        raise ValueError(
            f"use_cudnn_tensor_core configuration must be 'always', 'auto' or 'never', got "
            f"{setting!r}: invalid use_cudnn_tensor_core configuration.")
    flag = _TENSOR_CORE_FLAGS[setting]
    if flag is None:
        return bool(_this.cudnn_enabled and _this.cudnn.is_tensor_core_available(dtype))
    return flag


# compat: Chainer's first sentence, which it raises whenever cuDNN is off.
_NO_CUDNN_DROPOUT = (
    "cuDNN is not enabled. cuDNN dropout states must come from Chainer's cuDNN code paths, "
    "got a request in chainer_compat, which has none: F.dropout and the n_step RNNs run "
    "without them, so drop the call.")


def get_cudnn_dropout_states() -> NoReturn:
    """Chainer's per-thread cuDNN dropout states; chainer_compat has no cuDNN paths.

    Raises:
        RuntimeError: Always.
    """
    raise RuntimeError(_NO_CUDNN_DROPOUT)


def get_cudnn_dropout_states_core(thread_id: int) -> NoReturn:
    """Chainer's cuDNN dropout states of one thread; chainer_compat has no cuDNN paths.

    Args:
        thread_id: The thread whose states Chainer would return.

    Raises:
        RuntimeError: Always.
    """
    raise RuntimeError(_NO_CUDNN_DROPOUT)
