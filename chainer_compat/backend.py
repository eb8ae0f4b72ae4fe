"""Array-module dispatch and devices; never imports cupy unless the user already did.

Layer 1: imports numpy, the standard library and ``backends._cuda`` (the lazy CuPy probe), which
only GPU-bound paths call. ``backends.cuda`` builds Chainer's legacy CUDA module on top of this one.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import numpy

from chainer_compat.backends import _cuda

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


def is_array(x: Any) -> bool:
    """Returns whether ``x`` is a NumPy or CuPy array, without importing cupy."""
    return isinstance(x, numpy.ndarray) or is_cupy_array(x)


def current_cuda_device_id() -> int:
    """The ID of the current thread's current CUDA device (call only once cupy is imported)."""
    return int(sys.modules["cupy"].cuda.runtime.getDevice())


def get_array_module(*args: Any) -> ModuleType:
    """Returns cupy if any argument is (or wraps) a CuPy array, else numpy.

    Objects with an ``array`` attribute, such as :class:`~chainer.Variable`, are unwrapped.

    Args:
        args: Arrays, Variables or anything else; other objects are ignored.

    Returns:
        The :mod:`cupy` module if one argument holds a CuPy array, else :mod:`numpy`.
    """
    cls = _cupy_ndarray()
    if cls is not None:
        for arg in args:
            arr = getattr(arg, "array", arg) if not isinstance(arg, numpy.ndarray) else arg
            if isinstance(arr, cls):
                return sys.modules["cupy"]
    return numpy


_NUMPY_TYPES: tuple[type, ...] = (numpy.ndarray,)


def get_array_types() -> tuple[type, ...]:
    """Returns the array types chainer_compat accepts: ``numpy.ndarray``, and ``cupy.ndarray``.

    Compat:
        ``cupy.ndarray`` is listed once cupy has been imported (by the user or by a GPU call),
        rather than whenever it is installed, so asking never imports cupy.
    """
    cls = _cupy_ndarray()
    return _NUMPY_TYPES if cls is None else (numpy.ndarray, cls)


def get_cpu_array_types() -> tuple[type, ...]:
    """Returns the CPU array types: ``(numpy.ndarray,)``."""
    return _NUMPY_TYPES


def is_arrays_compatible(arrays: Iterable[Any]) -> bool:
    """Returns whether the arrays (None ignored) all live on the same kind of backend.

    The first array decides: all must be CuPy arrays if it is one, else all NumPy arrays.
    """
    present = [array for array in arrays if array is not None]
    if not present:
        return True
    cupy_type = _cupy_ndarray()
    if cupy_type is not None and isinstance(present[0], cupy_type):
        return all(isinstance(array, cupy_type) for array in present)
    return all(isinstance(array, numpy.ndarray) for array in present)


# ------------------------------------------------------------------------------------------------
# Moving arrays between host and device
# ------------------------------------------------------------------------------------------------

def _convert_arrays(arrays: Any, convert: Callable[[Any], Any]) -> Any:
    """Applies ``convert`` to an array, or to every array inside nested lists, tuples and dicts.

    None stays None, container types are kept, and an object found twice is converted once (both
    places get the same result, as in Chainer).
    """
    if isinstance(arrays, (list, tuple, dict)):
        return _convert_nested(arrays, convert, {})
    return convert(arrays)


def _convert_nested(value: Any, convert: Callable[[Any], Any], done: dict[int, Any]) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return type(value)(_convert_nested(item, convert, done) for item in value)
    if isinstance(value, tuple):
        items = [_convert_nested(item, convert, done) for item in value]
        # namedtuples take their fields as positional arguments
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return type(value)(
            (key, _convert_nested(item, convert, done)) for key, item in value.items())
    key = id(value)
    if key not in done:
        # The container keeps the original alive, so its id cannot be reused meanwhile.
        done[key] = convert(value)
    return done[key]


def _array_to_cpu(array: Any, stream: Any = None) -> Any:
    if array is None:
        return None
    if isinstance(array, numpy.ndarray):
        return array
    if is_cupy_array(array):
        with _entered_device(array.device):
            return array.get(stream)
    if numpy.isscalar(array):
        return numpy.asarray(array)
    # Chainer's message first; then what to pass instead.
    raise TypeError(
        f"Array cannot be converted into an numpy.ndarray\nActual type: {type(array)}.\n"
        "An array sent to the CPU must be a numpy.ndarray, a cupy.ndarray or a scalar: pass "
        "Variable.array rather than a Variable.")


def _arrays_to_cpu(value: Any) -> Any:
    """``_array_to_cpu`` of an array, or of each item of a list or tuple (one level, as
    Chainer's: a nested list is refused)."""
    if isinstance(value, (list, tuple)):
        converted: dict[int, Any] = {}  # an item given twice is brought over once
        items = []
        for item in value:
            if id(item) not in converted:
                converted[id(item)] = _array_to_cpu(item)
            items.append(converted[id(item)])
        return type(value)(items)
    return _array_to_cpu(value)


def _array_to_gpu(array: Any, device: Any, stream: Any = None) -> Any:
    # Callers check that CUDA is available; ``device`` is a cupy.cuda.Device.
    if array is None:
        return None
    cupy = _cuda.require()
    if isinstance(array, (numpy.number, numpy.bool_)):
        array = numpy.asarray(array)
    if isinstance(array, cupy.ndarray):
        if array.device.id == device.id:
            return array
        on_host = False
    elif isinstance(array, numpy.ndarray):
        on_host = True
    else:
        raise TypeError(
            f"array sent to the GPU must be a numpy.ndarray, a cupy.ndarray or a NumPy scalar, "
            f"got {type(array).__name__}. Wrap Python numbers with numpy.asarray first.")
    with _entered_device(device), (stream if stream is not None else contextlib.nullcontext()):
        if on_host:
            return cupy.asarray(array)
        # An array on another GPU must be copied; asarray would return it unchanged.
        return cupy.array(array, copy=True)


def _entered_device(device: Any) -> Any:
    # A fresh cupy.cuda.Device to enter: one instance keeps one stack of previous devices, which
    # threads entering it at once would interleave (see GpuDevice.create_context).
    return sys.modules["cupy"].cuda.Device(device.id)


def _describe(value: Any) -> str:
    return repr(value) if isinstance(value, (str, int, float)) else type(value).__name__


def _is_integer(value: Any) -> bool:
    # bool is an int subclass, but True/False as a device ID is always a mistake.
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


# ------------------------------------------------------------------------------------------------
# Devices
# ------------------------------------------------------------------------------------------------

class Device:
    """Base class of the devices arrays can live on: :class:`CpuDevice` and :class:`GpuDevice`.

    Subclasses give ``xp``, ``name``, ``supported_array_types``, ``send_array``, ``__eq__`` and
    ``is_array_supported``. A device is not a context manager itself; use
    :func:`using_device` (or :meth:`create_context`) to make it current.
    """

    @property
    def xp(self) -> ModuleType:
        """The array module of the device: numpy or cupy."""
        raise NotImplementedError("Device implementation must override this property.")

    @property
    def name(self) -> str:
        """The unique name of the device, such as ``'@numpy'`` or ``'@cupy:0'``."""
        raise NotImplementedError("Device implementation must override this property.")

    @property
    def supported_array_types(self) -> tuple[type, ...]:
        """The array types the device's array module works on."""
        raise NotImplementedError("Device implementation must override this property.")

    def __str__(self) -> str:
        return self.name

    def __enter__(self) -> None:
        # compat: Chainer devices refuse `with device:`; the error names the replacement.
        raise RuntimeError(
            f"Device class does not support runtime context using `with` statement, got "
            f"`with {self!r}`. Use chainer.using_device instead: `with "
            f"chainer.using_device({str(self)!r}):`.")

    def __exit__(self, *exc_info: object) -> None:
        pass  # only here so that __enter__'s error is the one Python reports

    def __eq__(self, other: object) -> bool:
        raise NotImplementedError("Device implementation must override this method.")

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.name)

    def create_context(self) -> contextlib.AbstractContextManager[Any]:
        """Returns a context manager that makes this device current inside its block."""
        return contextlib.nullcontext()

    def send(self, arrays: Any) -> Any:
        """Transfers an array, or the arrays in nested lists, tuples and dicts, to this device.

        Args:
            arrays: An array, None, or a (nested) list, tuple or dict of them.

        Returns:
            The same structure with every array on this device; arrays already there are
            returned as they are, not copied.

        Compat:
            Chainer accepts one level of list or tuple; nesting and dicts are our extension.
        """
        return _convert_arrays(arrays, self.send_array)

    def send_array(self, array: Any) -> Any:
        """Transfers one array to this device."""
        raise NotImplementedError("Device implementation must override this method.")

    def use(self) -> None:
        """Makes the device current in the current thread."""

    def is_array_supported(self, array: Any) -> bool:
        """Returns whether ``array`` is an array living on this device."""
        raise NotImplementedError("Device implementation must override this method.")


class CpuDevice(Device):
    """The host CPU, where arrays are NumPy arrays (name ``'@numpy'``)."""

    name = "@numpy"
    xp = numpy
    supported_array_types = (numpy.ndarray,)

    # Defining __eq__ below would otherwise set __hash__ to None.
    __hash__ = Device.__hash__

    @staticmethod
    def from_array(array: Any) -> CpuDevice | None:
        """Returns a CpuDevice if ``array`` is a NumPy array, else None."""
        return CpuDevice() if isinstance(array, numpy.ndarray) else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CpuDevice)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} (numpy)>"

    def send_array(self, array: Any) -> Any:
        return _array_to_cpu(array)

    def is_array_supported(self, array: Any) -> bool:
        return isinstance(array, numpy.ndarray)


class GpuDevice(Device):
    """A CUDA device, where arrays are CuPy arrays (name ``'@cupy:N'``).

    Args:
        device: The ``cupy.cuda.Device`` to wrap; it is kept as the ``device`` attribute.

    Raises:
        RuntimeError: If CUDA is not available.
        TypeError: If ``device`` is not a ``cupy.cuda.Device``.
    """

    __hash__ = Device.__hash__

    def __init__(self, device: Any) -> None:
        cuda_device_type = _cuda.require().cuda.Device
        if not isinstance(device, cuda_device_type):
            raise TypeError(
                f"GpuDevice device must be a cupy.cuda.Device, got {_describe(device)}. "
                f"Use GpuDevice.from_device_id(N) or get_device('@cupy:N') for a device ID.")
        self.device = device

    @staticmethod
    def from_device_id(device_id: int) -> GpuDevice:
        """Returns the GpuDevice of CUDA device ``device_id``.

        Raises:
            RuntimeError: If CUDA is not available.
            ValueError: If ``device_id`` is not the ID of a CUDA device on this machine.
        """
        _cuda.check_available()
        if not (_is_integer(device_id) and device_id >= 0):
            raise ValueError(
                f"Invalid CUDA device ID: CUDA device ID must be a non-negative integer, got "
                f"{_describe(device_id)}.")
        count = _cuda.device_count()
        if device_id >= count:
            raise ValueError(
                f"Invalid CUDA device ID: CUDA device ID must be less than the number of CUDA "
                f"devices ({count}), got {device_id}.")
        return GpuDevice(_cuda.require().cuda.Device(int(device_id)))

    @staticmethod
    def from_array(array: Any) -> GpuDevice | None:
        """Returns the GpuDevice ``array`` lives on if it is a CuPy array, else None."""
        if is_cupy_array(array) and array.device is not None:
            return GpuDevice(array.device)
        return None

    @property
    def name(self) -> str:
        return f"@cupy:{self.device.id}"

    @property
    def xp(self) -> ModuleType:
        return _cuda.require()

    @property
    def supported_array_types(self) -> tuple[type, ...]:
        return (_cuda.require().ndarray,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GpuDevice) and other.device.id == self.device.id

    def __repr__(self) -> str:
        return f"<{type(self).__name__} (cupy):{self.device.id}>"

    def create_context(self) -> contextlib.AbstractContextManager[Any]:
        # A fresh cupy.cuda.Device each time: one instance's device stack is not thread-safe.
        return _cuda.require().cuda.Device(self.device.id)

    def send_array(self, array: Any) -> Any:
        return _array_to_gpu(array, self.device)

    def use(self) -> None:
        self.device.use()

    def is_array_supported(self, array: Any) -> bool:
        return is_cupy_array(array) and array.device.id == self.device.id


_UNSUPPORTED_BACKEND = (
    "chainer_compat does not support ChainerX or iDeep (intel64); use '@numpy' (CpuDevice) for "
    "the CPU or '@cupy:N' (GpuDevice) for CUDA device N instead."
)


class ChainerxDevice(Device):
    """Placeholder for Chainer's ChainerX device; constructing it raises RuntimeError."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f"ChainerxDevice is not available: {_UNSUPPORTED_BACKEND}")

    @staticmethod
    def from_array(array: Any) -> None:
        """Returns None: no array is a ChainerX array here."""


# compat: Chainer's first line where iDeep is not installed, which code may match.
_IDEEP_UNAVAILABLE = f"iDeep is not available.\nReason: {_UNSUPPORTED_BACKEND}"


class Intel64Device(Device):
    """Placeholder for Chainer's iDeep device; constructing it raises RuntimeError."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(_IDEEP_UNAVAILABLE)

    @staticmethod
    def from_array(array: Any) -> None:
        """Returns None: no array is an iDeep array here."""


def _device_from_legacy_id(device_id: int) -> Device:
    # Chainer's integer spec: a negative ID means the CPU, any other a GPU.
    if device_id < 0:
        return CpuDevice()
    return GpuDevice.from_device_id(device_id)


def _device_from_string(device_spec: str) -> Device:
    try:
        return _device_from_legacy_id(int(device_spec))
    except ValueError:
        pass  # not '-1', '0', ...; parse the '@module[:id]' form below
    if not device_spec.startswith("@"):
        raise RuntimeError(
            f"Device specifier must be '@numpy', '@cupy:N' or an integer, got {device_spec!r}, "
            f"which Chainer reads as a ChainerX device. {_UNSUPPORTED_BACKEND}")
    module_name, colon, precise_spec = device_spec[1:].partition(":")
    if module_name == "numpy" and not colon:
        return CpuDevice()
    if module_name == "cupy" and colon:
        try:
            device_id = int(precise_spec)
        except ValueError:
            raise ValueError(
                f"Device specifier '@cupy:N' must end with an integer device ID, got "
                f"{device_spec!r}.") from None
        return GpuDevice.from_device_id(device_id)
    if module_name == "intel64" and not colon:
        raise RuntimeError(_IDEEP_UNAVAILABLE)
    raise ValueError(
        f"Device specifiers starting with '@' must be followed by a module name and depending on "
        f"the module, module specific precise device specifiers: '@numpy' or '@cupy:N', got "
        f"{device_spec!r}.")


def get_device(device_spec: Any) -> Device:
    """Returns the device a device specifier names.

    Args:
        device_spec: One of

            * a :class:`Device`, returned as it is;
            * ``'@numpy'``, :mod:`numpy`, or a negative integer: the CPU;
            * ``'@cupy:N'``, a non-negative integer ``N`` (or its string), or a
              ``cupy.cuda.Device``: CUDA device ``N``;
            * :mod:`cupy`: the current CUDA device.

    Returns:
        A :class:`CpuDevice` or :class:`GpuDevice`.

    Raises:
        RuntimeError: For a GPU specifier when CUDA is unavailable, and for ChainerX
            (``'native:0'``, ``'cuda:0'``) and iDeep (``'@intel64'``) specifiers.
        ValueError: For a malformed ``'@...'`` string or a GPU ID this machine lacks.
        TypeError: For any other kind of object.
    """
    if isinstance(device_spec, Device):
        return device_spec
    if _is_integer(device_spec):
        return _device_from_legacy_id(int(device_spec))
    if isinstance(device_spec, str):
        return _device_from_string(device_spec)
    if device_spec is numpy:
        return CpuDevice()
    cupy = sys.modules.get("cupy")  # a cupy object in hand means cupy is already imported
    if cupy is not None:
        if device_spec is cupy:
            _cuda.check_available()
            return GpuDevice(cupy.cuda.Device())
        cuda_device_type = getattr(getattr(cupy, "cuda", None), "Device", None)
        if cuda_device_type is not None and isinstance(device_spec, cuda_device_type):
            return GpuDevice(device_spec)
    raise TypeError(
        f"Device specifier must be a chainer_compat.backend.Device, a cupy.cuda.Device, an "
        f"integer, numpy, cupy or a string such as '@numpy' or '@cupy:0', got "
        f"{type(device_spec).__name__}.")


def get_device_from_array(*arrays: Any) -> Device:
    """Returns the device of the first CuPy array among ``arrays``, else :class:`CpuDevice`.

    Variables are not unwrapped: pass ``variable.array``.
    """
    for array in arrays:
        if is_cupy_array(array) and array.device is not None:
            return GpuDevice(array.device)
    return CpuDevice()


def cuda_device_to_enter(arrays: tuple[Any, ...]) -> Any:
    """The ``cupy.cuda.Device`` of the first CuPy array among ``arrays``, or None when there is
    none or its device is current already (then entering it would change nothing).

    The hot paths (apply, a backward step of the engine, an old-style backward) enter a device
    only when it is not current: building a GpuDevice and entering its context cost the host
    microseconds a node. So a forward or backward that itself makes another device current
    (``cupy.cuda.Device(n).use()``) is not undone when its arrays' device was current
    already, where Chainer 7, which enters the device around every forward, undoes it.
    """
    cls: Any = _cupy_ndarray()
    if cls is None:
        return None
    for array in arrays:
        if isinstance(array, cls):
            device = array.device
            if device is None:  # only a stand-in's array has no device
                continue
            device_id = device.id
            if device_id == current_cuda_device_id():
                return None
            # A fresh Device: one instance's device stack is not thread-safe.
            return sys.modules["cupy"].cuda.Device(device_id)
    return None


def using_device(device_spec: Any) -> contextlib.AbstractContextManager[Any]:
    """Returns a context manager that makes the specified device current inside its block.

    Args:
        device_spec: Anything :func:`get_device` accepts.
    """
    return get_device(device_spec).create_context()


def copyto(dst: Any, src: Any) -> None:
    """Copies the elements of ``src`` into ``dst``, across host and devices.

    Args:
        dst: Destination NumPy or CuPy array.
        src: Source NumPy or CuPy array (or a scalar), broadcast to ``dst``'s shape.

    Raises:
        TypeError: If ``dst`` or ``src`` is not an array.
    """
    if isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, _arrays_to_cpu(src))  # compat: a list source works, as in Chainer
        return
    if not is_cupy_array(dst):
        raise TypeError(
            f"copyto dst must be a numpy.ndarray or cupy.ndarray, got {type(dst).__name__}; "
            f"cannot copy to non-array object.")
    cupy = sys.modules["cupy"]
    if isinstance(src, numpy.ndarray) or numpy.isscalar(src):
        src = numpy.asarray(src)
        if src.shape == dst.shape and src.dtype == dst.dtype and dst.flags.c_contiguous:
            dst.set(src)  # one host-to-device copy, no temporary on the device
            return
        src = _array_to_gpu(src, dst.device)
    elif is_cupy_array(src):
        src = _array_to_gpu(src, dst.device)
    else:
        raise TypeError(
            f"copyto src must be a numpy.ndarray, a cupy.ndarray or a scalar, got "
            f"{type(src).__name__}; cannot copy from non-array object.")
    with _entered_device(dst.device):
        cupy.copyto(dst, src)


# compat: ChainerX's two converters, which Chainer's backend module also holds. Without
# ChainerX no array is ever one of its arrays: from_chx returns NumPy and CuPy arrays (in
# lists and tuples too) as they are, and to_chx has nothing to convert to.
def to_chx(array: Any) -> Any:
    """Raises: ChainerX is not supported by chainer_compat."""
    raise RuntimeError(
        "to_chx must not be used: chainer_compat does not support ChainerX; keep the arrays "
        "as NumPy or CuPy arrays")


def from_chx(array: Any) -> Any:
    """Returns ``array`` (or a list or tuple of arrays) as it is: nothing is a ChainerX array.

    Raises:
        TypeError: If ``array`` holds something that is neither an array nor None.
    """
    if isinstance(array, (list, tuple)):
        return type(array)(from_chx(item) for item in array)
    if array is not None and not (isinstance(array, numpy.ndarray) or is_cupy_array(array)):
        raise TypeError(
            "Tried to convert to a non-ChainerX array from an invalid type: "
            f"{type(array)}")
    return array


def __getattr__(name: str) -> Any:
    # compat: Chainer's backend module holds ``cuda``, imported here on first use (backends.cuda
    # imports this module).
    if name == "cuda":
        from chainer_compat.backends import cuda

        return cuda
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
