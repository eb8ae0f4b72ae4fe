"""Tests of chainer_compat.backend: devices, device specifiers, transfers, array-module dispatch."""

from __future__ import annotations

import collections
import re
import sys
import types

import numpy
import pytest

from chainer_compat import Variable, backend
from chainer_compat.backends import _cuda


@pytest.fixture
def without_cuda() -> None:
    if _cuda.is_available():
        pytest.skip("CUDA is available here; this test covers machines without it")


class _Wrapper:
    """Duck-typed stand-in for a Variable: an object with an ``array`` attribute."""

    def __init__(self, array: object) -> None:
        self.array = array


@pytest.fixture
def fake_cupy(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """Puts a minimal module named cupy in sys.modules, as if the user had imported CuPy."""
    module = types.ModuleType("cupy")

    class ndarray:  # mirrors cupy.ndarray
        pass

    module.ndarray = ndarray
    monkeypatch.setitem(sys.modules, "cupy", module)
    monkeypatch.setattr(backend, "_cupy_ndarray_type", None)
    return module


@pytest.fixture
def no_cupy_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    monkeypatch.setattr(backend, "_cupy_ndarray_type", None)


# ------------------------------------------------------------------------------------------------
# Array-module dispatch
# ------------------------------------------------------------------------------------------------

def test_get_array_module_returns_numpy_for_numpy_arrays_and_other_objects() -> None:
    x = numpy.zeros(3)
    assert backend.get_array_module(x) is numpy
    assert backend.get_array_module(x, 1.0, None, _Wrapper(x)) is numpy
    assert backend.get_array_module() is numpy


def test_get_array_module_detects_loaded_cupy_arrays_and_unwraps_array_attribute(
        fake_cupy: types.ModuleType) -> None:
    gpu_array = fake_cupy.ndarray()
    assert backend.get_array_module(numpy.zeros(1), gpu_array) is fake_cupy
    assert backend.get_array_module(_Wrapper(gpu_array)) is fake_cupy
    assert backend.is_cupy_array(gpu_array)
    assert not backend.is_cupy_array(numpy.zeros(1))


def test_get_array_types_lists_cupy_only_once_cupy_is_loaded(
        no_cupy_loaded: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert backend.get_array_types() == (numpy.ndarray,)
    module = types.ModuleType("cupy")
    module.ndarray = type("ndarray", (), {})
    monkeypatch.setitem(sys.modules, "cupy", module)
    assert backend.get_array_types() == (numpy.ndarray, module.ndarray)
    assert backend.get_cpu_array_types() == (numpy.ndarray,)


def test_is_arrays_compatible_requires_one_backend_decided_by_the_first_array(
        fake_cupy: types.ModuleType) -> None:
    cpu, gpu = numpy.zeros(1), fake_cupy.ndarray()
    assert backend.is_arrays_compatible([])
    assert backend.is_arrays_compatible([None, None])
    assert backend.is_arrays_compatible([cpu, None, cpu])
    assert backend.is_arrays_compatible([gpu, None, gpu])
    assert not backend.is_arrays_compatible([cpu, gpu])
    assert not backend.is_arrays_compatible([gpu, cpu])
    assert not backend.is_arrays_compatible([cpu, 1.0])


# ------------------------------------------------------------------------------------------------
# CpuDevice and the Device base class
# ------------------------------------------------------------------------------------------------

def test_cpu_device_describes_numpy() -> None:
    device = backend.CpuDevice()
    assert device.name == "@numpy"
    assert str(device) == "@numpy"
    assert repr(device) == "<CpuDevice (numpy)>"
    assert device.xp is numpy
    assert device.supported_array_types == (numpy.ndarray,)
    assert device.is_array_supported(numpy.zeros(2))
    assert not device.is_array_supported([1.0])
    device.use()


def test_cpu_devices_compare_equal_and_hash_alike() -> None:
    first, second = backend.CpuDevice(), backend.CpuDevice()
    assert first == second
    assert (first != second) is False
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    assert first != "@numpy"


def test_cpu_device_from_array_recognises_only_numpy_arrays() -> None:
    assert backend.CpuDevice.from_array(numpy.zeros(1)) == backend.CpuDevice()
    assert backend.CpuDevice.from_array(1.0) is None


def test_device_in_with_statement_raises_and_names_using_device() -> None:
    with pytest.raises(RuntimeError, match="using_device"), backend.CpuDevice():
        pass


def test_device_base_class_members_must_be_overridden() -> None:
    device = backend.Device()
    for name in ("xp", "name", "supported_array_types"):
        with pytest.raises(NotImplementedError):
            getattr(device, name)
    with pytest.raises(NotImplementedError):
        device.is_array_supported(numpy.zeros(1))
    with pytest.raises(NotImplementedError):
        device.send(numpy.zeros(1))
    with pytest.raises(NotImplementedError):
        device == 1  # noqa: B015 - the comparison itself must raise


def test_create_context_of_cpu_device_is_a_usable_context_manager() -> None:
    with backend.CpuDevice().create_context() as entered:
        assert entered is None


# ------------------------------------------------------------------------------------------------
# Device.send on the CPU
# ------------------------------------------------------------------------------------------------

def test_cpu_send_returns_numpy_arrays_without_copying() -> None:
    x = numpy.arange(3.0)
    assert backend.CpuDevice().send(x) is x


def test_cpu_send_keeps_none_and_container_types_at_every_depth() -> None:
    x, y = numpy.zeros(2), numpy.ones(3)
    Pair = collections.namedtuple("Pair", "first second")
    sent = backend.CpuDevice().send([x, None, (y, [x]), {"a": y, "b": None}, Pair(x, y)])
    assert type(sent) is list
    assert sent[0] is x and sent[1] is None
    assert type(sent[2]) is tuple and sent[2][0] is y and sent[2][1][0] is x
    assert sent[3] == {"a": y, "b": None}
    assert type(sent[4]) is Pair and sent[4].second is y
    assert backend.CpuDevice().send(None) is None


def test_cpu_send_turns_scalars_into_arrays_and_converts_a_repeated_object_once() -> None:
    scalar = numpy.float32(2.5)
    sent = backend.CpuDevice().send([scalar, 3.0, scalar])
    assert isinstance(sent[0], numpy.ndarray) and sent[0].shape == ()
    assert sent[0].dtype == numpy.float32 and sent[0] == 2.5
    assert isinstance(sent[1], numpy.ndarray) and sent[1] == 3.0
    assert sent[2] is sent[0]


def test_cpu_send_rejects_objects_that_are_not_arrays() -> None:
    with pytest.raises(TypeError, match="numpy.ndarray"):
        backend.CpuDevice().send(object())
    with pytest.raises(TypeError, match="Variable.array"):
        backend.CpuDevice().send(_Wrapper(numpy.zeros(1)))


# ------------------------------------------------------------------------------------------------
# get_device
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["@numpy", -1, "-1", numpy.int64(-3), numpy])
def test_get_device_maps_cpu_specifiers_to_cpu_device(spec: object) -> None:
    assert backend.get_device(spec) == backend.CpuDevice()


def test_get_device_returns_a_device_object_as_is() -> None:
    device = backend.CpuDevice()
    assert backend.get_device(device) is device


@pytest.mark.parametrize("spec", ["@foo", "@numpy:0", "@cupy", "@cupy:x", "@"])
def test_get_device_rejects_malformed_at_specifiers_with_value_error(spec: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(spec))):
        backend.get_device(spec)


@pytest.mark.parametrize("spec", ["native:0", "cuda:0", "native", "@intel64"])
def test_get_device_rejects_chainerx_and_ideep_specifiers_and_says_what_to_use(spec: str) -> None:
    with pytest.raises(RuntimeError, match="does not support ChainerX or iDeep") as info:
        backend.get_device(spec)
    assert "'@numpy'" in str(info.value) and "'@cupy:N'" in str(info.value)


@pytest.mark.parametrize("spec", [1.5, None, True, object(), [0]])
def test_get_device_rejects_other_objects_with_type_error(spec: object) -> None:
    with pytest.raises(TypeError, match="Device specifier must be"):
        backend.get_device(spec)


@pytest.mark.parametrize("spec", [0, "0", "@cupy:0", numpy.int32(0)])
def test_get_device_of_gpu_specifier_without_cuda_explains_how_to_install_cupy(
        without_cuda: None, spec: object) -> None:
    with pytest.raises(RuntimeError, match=r"pip install 'chainer_compat\[cuda12\]'"):
        backend.get_device(spec)


@pytest.mark.parametrize("args", [(), (0,)])
def test_variable_to_gpu_without_cuda_raises_runtime_error(without_cuda: None,
                                                           args: tuple[int, ...]) -> None:
    x = Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(RuntimeError, match=r"pip install 'chainer_compat\[cuda12\]'"):
        x.to_gpu(*args)
    assert type(x.array) is numpy.ndarray  # left where it was


def test_placeholder_devices_of_unsupported_backends_refuse_construction() -> None:
    for device_class in (backend.ChainerxDevice, backend.Intel64Device):
        with pytest.raises(RuntimeError, match="does not support ChainerX or iDeep"):
            device_class()
        assert device_class.from_array(numpy.zeros(1)) is None


@pytest.mark.parametrize("make", [backend.Intel64Device, lambda: backend.get_device("@intel64")])
def test_the_ideep_device_is_refused_with_chainers_first_line(make) -> None:
    # Chainer, where iDeep is not installed, says "iDeep is not available." first.
    with pytest.raises(RuntimeError) as info:
        make()
    assert str(info.value).splitlines()[0] == "iDeep is not available."


def test_get_device_from_array_is_cpu_for_numpy_and_does_not_unwrap() -> None:
    x = numpy.zeros(1)
    assert backend.get_device_from_array(x) == backend.CpuDevice()
    assert backend.get_device_from_array() == backend.CpuDevice()
    assert backend.get_device_from_array(_Wrapper(x), 1.0) == backend.CpuDevice()


@pytest.mark.parametrize("spec", ["@numpy", -1, backend.CpuDevice()])
def test_using_device_accepts_cpu_specifiers(spec: object) -> None:
    with backend.using_device(spec):
        result = numpy.ones(2) * 2
    assert result.tolist() == [2.0, 2.0]


def test_using_device_rejects_what_get_device_rejects() -> None:
    with pytest.raises(ValueError):
        backend.using_device("@foo")


# ------------------------------------------------------------------------------------------------
# copyto on the CPU
# ------------------------------------------------------------------------------------------------

def test_copyto_copies_and_broadcasts_into_a_numpy_array() -> None:
    dst = numpy.zeros((2, 3), dtype=numpy.float32)
    src = numpy.arange(3, dtype=numpy.float64)
    backend.copyto(dst, src)
    assert dst.tolist() == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    backend.copyto(dst, 7.0)
    assert (dst == 7.0).all()


def test_copyto_rejects_non_array_destination_and_source() -> None:
    with pytest.raises(TypeError, match="copyto dst"):
        backend.copyto([0.0], numpy.zeros(1))
    with pytest.raises(TypeError):
        backend.copyto(numpy.zeros(1), object())


# ------------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_device_is_named_after_its_cuda_id(cupy: types.ModuleType) -> None:
    device = backend.GpuDevice.from_device_id(0)
    assert device.name == "@cupy:0"
    assert str(device) == "@cupy:0"
    assert repr(device) == "<GpuDevice (cupy):0>"
    assert device.xp is cupy
    assert device.supported_array_types == (cupy.ndarray,)
    assert isinstance(device.device, cupy.cuda.Device) and device.device.id == 0


@pytest.mark.gpu
def test_gpu_devices_of_one_id_are_equal_and_differ_from_cpu(cupy: types.ModuleType) -> None:
    first = backend.GpuDevice.from_device_id(0)
    second = backend.GpuDevice(cupy.cuda.Device(0))
    assert first == second and hash(first) == hash(second)
    assert first != backend.CpuDevice()
    assert backend.CpuDevice() != first


@pytest.mark.gpu
@pytest.mark.parametrize("spec", [0, "0", "@cupy:0", numpy.int64(0)])
def test_get_device_maps_gpu_specifiers_to_gpu_device(cupy: types.ModuleType,
                                                       spec: object) -> None:
    assert backend.get_device(spec) == backend.GpuDevice.from_device_id(0)


@pytest.mark.gpu
def test_get_device_accepts_cupy_device_and_cupy_module(cupy: types.ModuleType) -> None:
    assert backend.get_device(cupy.cuda.Device(0)).device.id == 0
    with cupy.cuda.Device(0):
        assert backend.get_device(cupy) == backend.GpuDevice.from_device_id(0)


@pytest.mark.gpu
def test_gpu_device_rejects_bad_ids_and_non_device_objects(cupy: types.ModuleType) -> None:
    count = cupy.cuda.runtime.getDeviceCount()
    with pytest.raises(ValueError, match="Invalid CUDA device ID"):
        backend.GpuDevice.from_device_id(count)
    with pytest.raises(ValueError, match="Invalid CUDA device ID"):
        backend.GpuDevice.from_device_id(-1)
    with pytest.raises(TypeError, match="cupy.cuda.Device"):
        backend.GpuDevice(0)


@pytest.mark.gpu
def test_gpu_send_moves_nested_arrays_and_cpu_send_brings_them_back(
        cupy: types.ModuleType) -> None:
    gpu, cpu = backend.get_device("@cupy:0"), backend.CpuDevice()
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    sent = gpu.send({"x": x, "pair": (x, None), "scalar": numpy.float64(1.5)})
    assert isinstance(sent["x"], cupy.ndarray) and sent["x"].device.id == 0
    assert sent["pair"][0] is sent["x"] and sent["pair"][1] is None
    assert sent["scalar"].shape == () and float(sent["scalar"]) == 1.5
    assert gpu.send(sent["x"]) is sent["x"]
    assert gpu.is_array_supported(sent["x"]) and not gpu.is_array_supported(x)
    back = cpu.send(sent["x"])
    assert isinstance(back, numpy.ndarray)
    numpy.testing.assert_array_equal(back, x)
    with pytest.raises(TypeError, match="numpy.asarray"):
        gpu.send(1.0)


@pytest.mark.gpu
def test_get_device_from_array_and_get_array_module_see_cupy_arrays(
        cupy: types.ModuleType) -> None:
    x = cupy.zeros(2)
    assert backend.get_device_from_array(numpy.zeros(1), x) == backend.GpuDevice.from_device_id(0)
    assert backend.GpuDevice.from_array(x) == backend.get_device("@cupy:0")
    assert backend.GpuDevice.from_array(numpy.zeros(1)) is None
    assert backend.get_array_module(x) is cupy
    assert backend.get_array_module(_Wrapper(x)) is cupy
    assert cupy.ndarray in backend.get_array_types()
    assert backend.is_arrays_compatible([x, None, x])
    assert not backend.is_arrays_compatible([x, numpy.zeros(1)])


@pytest.mark.gpu
def test_using_device_makes_the_gpu_current(cupy: types.ModuleType) -> None:
    with backend.using_device("@cupy:0"):
        assert cupy.cuda.Device().id == 0
        created = cupy.empty((2,))
    assert created.device.id == 0


@pytest.mark.gpu
def test_copyto_crosses_host_and_device_in_both_directions(cupy: types.ModuleType) -> None:
    host = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    device_array = cupy.zeros((2, 3), dtype=cupy.float32)
    backend.copyto(device_array, host)
    numpy.testing.assert_array_equal(device_array.get(), host)

    strided = cupy.zeros((2, 6), dtype=cupy.float64)[:, ::2]
    backend.copyto(strided, host)  # non-contiguous and another dtype: goes through the device
    numpy.testing.assert_array_equal(strided.get(), host)
    backend.copyto(strided, 4.0)
    assert bool((strided == 4.0).all())

    result = numpy.zeros((2, 3), dtype=numpy.float32)
    backend.copyto(result, device_array * 2)
    numpy.testing.assert_array_equal(result, host * 2)

    other = cupy.ones((2, 3), dtype=cupy.float32)
    backend.copyto(other, device_array)
    numpy.testing.assert_array_equal(other.get(), host)


@pytest.mark.parametrize("source", [[1.0, 2.0], (1.0, 2.0), [numpy.float32(1), 2]])
def test_copyto_takes_a_list_or_tuple_source_as_chainer_does(source):
    destination = numpy.zeros(2, numpy.float32)
    backend.copyto(destination, source)
    assert destination.tolist() == [1.0, 2.0]


def test_copyto_converts_one_level_of_list_as_chainer_does():
    destination = numpy.zeros((2, 2), numpy.float32)
    with pytest.raises(TypeError, match="Actual type: <class 'list'>"):
        backend.copyto(destination, [[1.0, 2.0], [3.0, 4.0]])
    assert destination.tolist() == [[0.0, 0.0], [0.0, 0.0]]
