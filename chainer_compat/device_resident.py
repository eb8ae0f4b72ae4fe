"""``DeviceResident``: objects whose arrays live on one device and move together, and the
visitor that walks them (``Link`` is one; so is ``utils.WalkerAlias``).

Layer 1: imports backend; cuda only inside ``to_gpu``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend

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


class _ToDevice(DeviceResidentsVisitor):
    """Moves everything it visits to ``device``; with ``keep_gpu_arrays``, arrays already on a
    GPU stay where they are (Chainer's ``to_gpu``)."""

    def __init__(self, device: backend.Device, keep_gpu_arrays: bool) -> None:
        self._device = device
        self._keep_gpu_arrays = keep_gpu_arrays

    def _stays(self, array: Any) -> bool:
        return self._keep_gpu_arrays and backend.is_cupy_array(array)

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        device_resident._device = self._device

    def visit_array(self, arr: Any) -> Any:
        return arr if self._stays(arr) else self._device.send(arr)

    def visit_variable(self, param: Any) -> None:
        if not self._stays(param.array):
            param.to_device(self._device)


class DeviceResident:
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

    def to_device(self, device: Any) -> Any:
        """Moves the arrays and Variables this object owns to ``device``; returns self.

        Args:
            device: A device or a specifier :func:`chainer_compat.get_device` accepts.
        """
        self.device_resident_accept(_ToDevice(backend.get_device(device), False))
        return self

    def to_cpu(self) -> Any:
        """Moves the arrays and Variables this object owns to the host; returns self."""
        self.device_resident_accept(_ToDevice(backend.CpuDevice(), False))
        return self

    def to_gpu(self, device: Any = None) -> Any:
        """Moves the arrays and Variables this object owns to a CUDA device; returns self.

        Arrays already on some GPU stay where they are, as in Chainer.

        Args:
            device: Device ID or specifier; None means the current CUDA device.

        Raises:
            RuntimeError: If CuPy or a CUDA device is missing.
        """
        from chainer_compat.backends import cuda  # optional backend, loaded on use

        cuda.check_cuda_available()
        cuda_device = cuda._cuda_device_or_current(device)
        self.device_resident_accept(_ToDevice(backend.GpuDevice(cuda_device), True))
        return self

    def to_intel64(self) -> Any:
        """Raises: iDeep is not supported by chainer_compat."""
        raise RuntimeError(
            "to_intel64 must not be used: chainer_compat does not support iDeep; the CPU "
            "device ('@numpy', to_cpu()) runs the same code")

    def to_chx(self) -> Any:
        """Raises: ChainerX is not supported by chainer_compat."""
        raise RuntimeError(
            "to_chx must not be used: chainer_compat does not support ChainerX; use "
            "to_device('@numpy') or to_device('@cupy:N')")

    def from_chx(self) -> Any:
        """Returns self: without ChainerX, nothing ever lives there."""
        return self
