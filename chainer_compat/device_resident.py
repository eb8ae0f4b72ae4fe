"""``DeviceResident``: objects whose arrays live on one device and move together, and the
visitor that walks them (``Link`` is one; so is ``utils.WalkerAlias``).

Layer 1: imports backend and ``utils.meta``; cuda only inside ``to_gpu``.
"""

from __future__ import annotations

import abc
import warnings
from typing import Any

from chainer_compat import backend
from chainer_compat.utils import meta

__all__ = ["DeviceResident", "DeviceResidentsVisitor"]


class DeviceResidentsVisitor:
    """Visits the device-resident objects of a hierarchy and the arrays and Variables they own.

    A subclass defines what a visit does; :meth:`DeviceResident.device_resident_accept` decides
    what is visited.
    """

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Processes a :class:`DeviceResident` before its arrays are visited."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement visit_device_resident(device_resident)")

    def visit_array(self, arr: Any) -> Any:
        """Processes an array and returns the array to keep (the same one, or a new one)."""
        raise NotImplementedError(f"{type(self).__name__} must implement visit_array(arr)")

    def visit_variable(self, param: Any) -> None:
        """Processes a Variable or a Parameter (in place)."""
        raise NotImplementedError(f"{type(self).__name__} must implement visit_variable(param)")


# NOTE [overridden to_cpu and to_gpu]
# compat: before Chainer v7, a link that owned arrays of its own moved them by overriding to_cpu
# or to_gpu, and Chainer 7 still honours that: when a move reaches an object whose class
# overrides the method that names the move (to_cpu for the host, to_gpu for a GPU, whether the
# move began as to_device or as that method), the move calls the override, which moves the
# object itself. The object the move began with is not called again (its override is what is
# running). to_cpu, to_gpu and to_intel64 also warn that they are deprecated, as in Chainer.
_TO_METHODS = ("to_cpu", "to_gpu", "to_intel64")


def _overrides(device_resident: DeviceResident, method: str) -> bool:
    return getattr(type(device_resident), method) is not getattr(DeviceResident, method)


def _method_for(device: backend.Device) -> tuple[str | None, dict[str, Any]]:
    """The deprecated method a move to ``device`` corresponds to, and its arguments."""
    if isinstance(device, backend.GpuDevice):
        return "to_gpu", {"device": device.device}
    if isinstance(device, backend.CpuDevice):
        return "to_cpu", {}
    return None, {}


class _ToDevice(DeviceResidentsVisitor):
    """Moves everything it visits to ``device``; with ``keep_gpu_arrays``, arrays already on a
    GPU stay where they are (Chainer's ``to_gpu``).

    ``entry`` is the deprecated method (name and arguments) the move began as, if any, and
    ``start`` the object it began with (NOTE [overridden to_cpu and to_gpu]).
    """

    def __init__(self, device: backend.Device, keep_gpu_arrays: bool,
                 entry: tuple[str, dict[str, Any]] | None = None,
                 start: DeviceResident | None = None) -> None:
        self._device = device
        self._keep_gpu_arrays = keep_gpu_arrays
        self._entry = entry
        self._start = start

    def _stays(self, array: Any) -> bool:
        return self._keep_gpu_arrays and backend.is_cupy_array(array)

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        device_resident._device = self._device
        if device_resident is self._start:
            return
        method, kwargs = self._entry if self._entry is not None else _method_for(self._device)
        if method is not None and _overrides(device_resident, method):
            getattr(device_resident, method)(**kwargs)

    def visit_array(self, arr: Any) -> Any:
        return arr if self._stays(arr) else self._device.send(arr)

    def visit_variable(self, param: Any) -> None:
        if not self._stays(param.array):
            param.to_device(self._device)


# compat: Chainer's metaclass: a subclass that overrides to_device, to_chx or from_chx is
# refused when it is defined (TypeError), and one that overrides to_cpu, to_gpu or to_intel64
# gets a DeprecationWarning; an ABCMeta, so that abstract mixins combine with links.
class DeviceResident(meta.enable_final(meta_base=abc.ABCMeta)):  # type: ignore[misc]
    """Base class of objects that own arrays on one device and move them together.

    :meth:`to_device` (and ``to_cpu``/``to_gpu``) hands a moving visitor to
    :meth:`device_resident_accept`; a subclass that owns arrays or Variables outside the ones
    its base class knows overrides that method, calls ``super()``, and visits them too.
    """

    # compat: class-level default, so that a subclass that skips __init__ still has a device.
    _device: backend.Device = backend.CpuDevice()

    def __init__(self) -> None:
        self._device = backend.CpuDevice()

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Applies ``visitor`` to this object and to the arrays and Variables it owns.

        Args:
            visitor: The visitor; this base class calls only its ``visit_device_resident``.
        """
        visitor.visit_device_resident(self)

    @property
    def device(self) -> backend.Device:
        """The device this object's arrays live on."""
        return self._device

    @property
    def xp(self) -> Any:
        """The array module of :attr:`device`: numpy or cupy."""
        return self._device.xp

    @meta.final
    def to_device(self, device: Any) -> Any:
        """Moves the arrays and Variables this object owns to ``device``; returns self.

        Args:
            device: A device or a specifier :func:`chainer_compat.get_device` accepts.
        """
        self.device_resident_accept(_ToDevice(backend.get_device(device), False))
        return self

    @meta.final(action=DeprecationWarning)
    def to_cpu(self) -> Any:
        """Moves the arrays and Variables this object owns to the host; returns self.

        Deprecated, as in Chainer 7: use ``to_device('@numpy')``. A descendant whose class
        overrides ``to_cpu`` has its override called (NOTE [overridden to_cpu and to_gpu]).
        """
        _warn_deprecated("to_cpu", "@numpy")
        self.device_resident_accept(
            _ToDevice(backend.CpuDevice(), False, ("to_cpu", {}), self))
        return self

    @meta.final(action=DeprecationWarning)
    def to_gpu(self, device: Any = None) -> Any:
        """Moves the arrays and Variables this object owns to a CUDA device; returns self.

        Arrays already on some GPU stay where they are, as in Chainer. Deprecated, as in
        Chainer 7: use ``to_device('@cupy:N')``. A descendant whose class overrides ``to_gpu``
        has its override called (NOTE [overridden to_cpu and to_gpu]).

        Args:
            device: Device ID or specifier; None means the current CUDA device.

        Raises:
            RuntimeError: If CuPy or a CUDA device is missing.
        """
        from chainer_compat.backends import cuda  # optional backend, loaded on use

        _warn_deprecated("to_gpu", "@cupy:N")
        cuda.check_cuda_available()
        cuda_device = cuda._cuda_device_or_current(device)
        self.device_resident_accept(_ToDevice(
            backend.GpuDevice(cuda_device), True, ("to_gpu", {"device": cuda_device}), self))
        return self

    @meta.final(action=DeprecationWarning)
    def to_intel64(self) -> Any:
        """Raises: iDeep is not supported by chainer_compat."""
        _warn_deprecated("to_intel64", "@intel64")
        raise RuntimeError(
            "to_intel64 must not be used: chainer_compat does not support iDeep; the CPU "
            "device ('@numpy', to_cpu()) runs the same code")

    @meta.final
    def to_chx(self) -> Any:
        """Raises: ChainerX is not supported by chainer_compat."""
        raise RuntimeError(
            "to_chx must not be used: chainer_compat does not support ChainerX; use "
            "to_device('@numpy') or to_device('@cupy:N')")

    @meta.final
    def from_chx(self) -> Any:
        """Returns self: without ChainerX, nothing ever lives there."""
        return self


def _warn_deprecated(method: str, device: str) -> None:
    # compat: Chainer's wording, which tests and log filters match on.
    warnings.warn(f"{method} is deprecated. Please use to_device('{device}') instead.",
                  DeprecationWarning, stacklevel=1)
