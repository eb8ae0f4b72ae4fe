"""Tests of chainer_compat.backends.cuda (Chainer's CUDA module) and its lazy CuPy probe."""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy
import pytest

import chainer_compat.backends
from chainer_compat import backend
from chainer_compat.backends import _cuda, cuda
from chainer_compat.configuration import using_config


@pytest.fixture
def without_cuda() -> None:
    if _cuda.is_available():
        pytest.skip("CUDA is available here; this test covers machines without it")


INSTALL_PATTERN = r"pip install 'chainer_compat\[cuda12\]'"


# ------------------------------------------------------------------------------------------------
# Module identity and lazy names
# ------------------------------------------------------------------------------------------------

def test_legacy_cuda_path_is_the_same_module_object() -> None:
    import chainer_compat.cuda as legacy
    from chainer_compat import cuda as imported_from_package

    assert legacy is cuda
    assert imported_from_package is cuda
    assert sys.modules["chainer_compat.cuda"] is cuda
    assert chainer_compat.backends.cuda is cuda


def test_backends_package_rejects_unknown_attributes() -> None:
    with pytest.raises(AttributeError):
        chainer_compat.backends.no_such_module  # noqa: B018 - the access itself must raise


def test_unknown_cuda_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        cuda.no_such_name  # noqa: B018 - the access itself must raise
    assert "available" in dir(cuda) and "to_gpu" in dir(cuda)


def test_reexports_are_the_backend_objects() -> None:
    assert cuda.GpuDevice is backend.GpuDevice
    assert cuda.get_array_module is backend.get_array_module
    assert cuda.get_array_module(numpy.zeros(1)) is numpy


def test_lazy_names_without_cuda_are_safe_placeholders(without_cuda: None) -> None:
    assert cuda.available is False
    assert cuda.cudnn_enabled is False
    assert cuda.cupy is not numpy
    assert not isinstance(numpy.zeros(1), cuda.ndarray)
    if cuda.cupy is sys.modules.get("cupy"):
        return  # CuPy imports but sees no device: the names are CuPy's own
    with pytest.raises(AttributeError, match=INSTALL_PATTERN):
        cuda.cupy.asarray  # noqa: B018 - the access itself must raise
    with pytest.raises(RuntimeError, match=INSTALL_PATTERN):
        cuda.Device(0)


# ------------------------------------------------------------------------------------------------
# DummyDevice
# ------------------------------------------------------------------------------------------------

def test_dummy_device_is_a_no_op_cpu_device_with_id_minus_one() -> None:
    device = cuda.DummyDevice
    assert isinstance(device, cuda.DummyDeviceType)
    assert device.id == -1
    assert int(device) == -1
    with device as entered:
        assert entered is device
    assert device.use() is None
    assert device.synchronize() is None
    assert device == cuda.DummyDeviceType()
    assert (device != cuda.DummyDeviceType()) is False
    assert hash(device) == hash(cuda.DummyDeviceType())
    assert device != -1


def test_get_device_from_id_returns_dummy_device_for_none_and_negative_ids() -> None:
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_id(-1) is cuda.DummyDevice


def test_get_device_from_array_returns_dummy_device_for_cpu_values() -> None:
    assert cuda.get_device_from_array(numpy.zeros(1)) is cuda.DummyDevice
    assert cuda.get_device_from_array() is cuda.DummyDevice


def test_deprecated_get_device_warns_and_returns_dummy_device_for_cpu_values() -> None:
    with pytest.warns(DeprecationWarning, match="get_device_from_id"):
        assert cuda.get_device(numpy.zeros(1), None) is cuda.DummyDevice


# ------------------------------------------------------------------------------------------------
# to_cpu, and the GPU entry points without CUDA
# ------------------------------------------------------------------------------------------------

def test_to_cpu_returns_numpy_arrays_unchanged_and_keeps_none() -> None:
    x = numpy.arange(4.0)
    assert cuda.to_cpu(x) is x
    assert cuda.to_cpu(None) is None


def test_to_cpu_keeps_list_and_tuple_types_including_nested_ones() -> None:
    x, y = numpy.zeros(1), numpy.ones(2)
    converted = cuda.to_cpu([x, (y, None), [x]])
    assert type(converted) is list and type(converted[1]) is tuple
    assert converted[0] is x and converted[1][0] is y and converted[1][1] is None
    assert converted[2][0] is x
    as_tuple = cuda.to_cpu((x, y))
    assert type(as_tuple) is tuple and as_tuple[1] is y


@pytest.mark.parametrize("scalar", [numpy.float32(1.5), numpy.int64(3), 2.0, True])
def test_to_cpu_turns_scalars_into_zero_dimensional_arrays(scalar: object) -> None:
    converted = cuda.to_cpu(scalar)
    assert isinstance(converted, numpy.ndarray) and converted.shape == ()
    assert converted.item() == scalar


def test_to_cpu_rejects_objects_that_are_not_arrays() -> None:
    with pytest.raises(TypeError, match="numpy.ndarray"):
        cuda.to_cpu(object())


def test_check_cuda_available_without_cuda_says_how_to_install_cupy(without_cuda: None) -> None:
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up") as info:
        cuda.check_cuda_available()
    assert "CUDA is not available" in str(info.value)
    assert "pip install 'chainer_compat[cuda12]'" in str(info.value)


def test_gpu_entry_points_without_cuda_raise_runtime_error(without_cuda: None) -> None:
    calls = [
        lambda: cuda.to_gpu(numpy.zeros(1)),
        lambda: cuda.get_device_from_id(0),
        lambda: cuda.copy(numpy.zeros(1)),
        lambda: cuda.elementwise("T x", "T y", "y = x", "copy_kernel"),
        lambda: cuda.reduce("T x", "T y", "x", "a + b", "y = a", "0", "sum_kernel"),
        lambda: cuda.raw("extern \"C\" __global__ void k() {}", "k"),
        lambda: cuda.using_allocator(None),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match=INSTALL_PATTERN):
            call()


def test_cudnn_helpers_without_cuda_report_no_cudnn(without_cuda: None) -> None:
    assert cuda.get_max_workspace_size() == 0
    cuda.set_max_workspace_size(1 << 20)
    assert cuda.get_max_workspace_size() == 0
    assert cuda.should_use_cudnn(">=auto") is False
    assert cuda.should_use_cudnn("==always") is False


@pytest.mark.parametrize(("setting", "expected"), [("always", True), ("never", False)])
def test_should_use_cudnn_tensor_core_follows_explicit_configuration(setting: str,
                                                                     expected: bool) -> None:
    with using_config("use_cudnn_tensor_core", setting):
        assert cuda.should_use_cudnn_tensor_core(numpy.float16) is expected


def test_should_use_cudnn_tensor_core_rejects_unknown_configuration() -> None:
    with using_config("use_cudnn_tensor_core", "sometimes"), \
            pytest.raises(ValueError, match="use_cudnn_tensor_core"):
        cuda.should_use_cudnn_tensor_core(numpy.float16)


# ------------------------------------------------------------------------------------------------
# memoize and fuse on the CPU
# ------------------------------------------------------------------------------------------------

def test_memoize_without_cupy_loaded_calls_the_function_every_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    calls = []

    @cuda.memoize(for_each_device=True)
    def square(value: int) -> int:
        """Squares."""
        calls.append(value)
        return value * value

    assert square(3) == 9 and square(3) == 9
    assert calls == [3, 3]
    assert square.__name__ == "square" and square.__doc__ == "Squares."
    cuda.clear_memo()


@pytest.mark.parametrize("decorate", [cuda.fuse, cuda.fuse(), cuda.fuse(kernel_name="scaled")])
def test_fuse_runs_the_plain_function_on_numpy_arrays(decorate: Callable[..., Any]) -> None:
    def scaled_sum(x: numpy.ndarray, y: numpy.ndarray) -> numpy.ndarray:
        return x * 2 + y

    fused = decorate(scaled_sum)
    x, y = numpy.arange(3.0), numpy.ones(3)
    numpy.testing.assert_array_equal(fused(x, y), x * 2 + y)
    assert fused.__name__ == "scaled_sum"


# ------------------------------------------------------------------------------------------------
# The CuPy probe, with stand-in modules
# ------------------------------------------------------------------------------------------------

def _stand_in_cupy(count: object) -> types.ModuleType:
    def get_device_count() -> int:
        if isinstance(count, Exception):
            raise count
        return count

    module = types.ModuleType("cupy")
    module.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=get_device_count))
    return module


@pytest.fixture
def fresh_probe(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(_cuda, "_state", None)
    return monkeypatch


def test_probe_reports_cupy_without_devices_as_unavailable(fresh_probe: pytest.MonkeyPatch) -> None:
    module = _stand_in_cupy(0)
    fresh_probe.setitem(sys.modules, "cupy", module)
    assert _cuda.cupy_module() is module
    assert not _cuda.is_available()
    assert _cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="sees no CUDA device") as info:
        _cuda.check_available()
    assert "pip install 'chainer_compat[cuda12]'" in str(info.value)


def test_probe_reports_a_failing_device_count_as_unavailable(
        fresh_probe: pytest.MonkeyPatch) -> None:
    fresh_probe.setitem(sys.modules, "cupy", _stand_in_cupy(RuntimeError("driver too old")))
    assert not _cuda.is_available()
    assert "driver too old" in _cuda.unavailable_message()


def test_probe_reports_a_failing_import_as_unavailable(fresh_probe: pytest.MonkeyPatch) -> None:
    fresh_probe.setitem(sys.modules, "cupy", None)  # makes `import cupy` raise ImportError
    assert _cuda.cupy_module() is None
    assert not _cuda.is_available()
    assert "import cupy failed" in _cuda.unavailable_message()


def test_probe_counts_devices_once_and_caches_the_answer(fresh_probe: pytest.MonkeyPatch) -> None:
    counted = []
    module = _stand_in_cupy(2)
    module.cuda.runtime.getDeviceCount = lambda: counted.append(1) or 2
    fresh_probe.setitem(sys.modules, "cupy", module)
    assert _cuda.is_available() and _cuda.device_count() == 2
    _cuda.check_available()
    assert counted == [1]


# ------------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_lazy_names_are_cupy_objects_with_cuda(cupy: types.ModuleType) -> None:
    assert cuda.available is True
    assert cuda.cupy is cupy
    assert cuda.ndarray is cupy.ndarray
    assert cuda.Device is cupy.cuda.Device
    assert isinstance(cuda.cudnn_enabled, bool)
    assert isinstance(cuda.get_max_workspace_size(), int)
    cuda.check_cuda_available()


@pytest.mark.gpu
def test_to_gpu_and_to_cpu_round_trip_nested_values(cupy: types.ModuleType) -> None:
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    on_gpu = cuda.to_gpu([x, (numpy.float64(2.5), None)])
    assert isinstance(on_gpu[0], cupy.ndarray) and on_gpu[0].device.id == 0
    assert on_gpu[1][0].shape == () and on_gpu[1][1] is None
    back = cuda.to_cpu(on_gpu)
    assert isinstance(back[0], numpy.ndarray)
    numpy.testing.assert_array_equal(back[0], x)
    assert back[1][0] == 2.5 and back[1][1] is None


@pytest.mark.gpu
def test_to_gpu_accepts_every_cuda_device_specifier(cupy: types.ModuleType) -> None:
    x = numpy.ones(3)
    for device in (None, 0, numpy.int32(0), cuda.DummyDevice, cupy.cuda.Device(0),
                   backend.GpuDevice.from_device_id(0)):
        moved = cuda.to_gpu(x, device=device)
        assert moved.device.id == 0
        assert cuda.to_gpu(moved, device=device) is moved  # already there: no copy
    with pytest.raises(ValueError, match="Invalid CUDA device specifier"):
        cuda.to_gpu(x, device=-1)
    with pytest.raises(TypeError, match="NumPy scalar"):
        cuda.to_gpu(1.0)
    with pytest.warns(DeprecationWarning, match="stream"):
        cuda.to_gpu(x, stream=cupy.cuda.Stream())


@pytest.mark.gpu
def test_copy_makes_a_new_device_array_or_fills_out(cupy: types.ModuleType) -> None:
    x = cupy.arange(4, dtype=cupy.float32)
    copied = cuda.copy(x)
    assert copied is not x and copied.device.id == 0
    numpy.testing.assert_array_equal(copied.get(), x.get())
    out = cupy.zeros(4, dtype=cupy.float32)
    assert cuda.copy(x, out=out) is out
    numpy.testing.assert_array_equal(out.get(), x.get())
    assert cuda.copy(x, out_device="@cupy:0").device.id == 0


@pytest.mark.gpu
def test_cuda_device_lookup_returns_cupy_devices(cupy: types.ModuleType) -> None:
    assert cuda.get_device_from_id(0) == cupy.cuda.Device(0)
    x = cupy.zeros(1)
    assert cuda.get_device_from_array(numpy.zeros(1), x).id == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert cuda.get_device(x).id == 0
        assert cuda.get_device(0).id == 0


@pytest.mark.gpu
def test_kernels_are_built_once_and_run(cupy: types.ModuleType) -> None:
    double = cuda.elementwise("T x", "T y", "y = x * 2", "chainer_compat_test_double")
    assert cuda.elementwise("T x", "T y", "y = x * 2", "chainer_compat_test_double") is double
    x = cupy.arange(4, dtype=cupy.float32)
    numpy.testing.assert_array_equal(double(x).get(), [0, 2, 4, 6])
    total = cuda.reduce("T x", "T y", "x", "a + b", "y = a", "0", "chainer_compat_test_sum")
    assert float(total(x)) == 6.0


@pytest.mark.gpu
def test_memoize_caches_once_cupy_is_loaded(cupy: types.ModuleType) -> None:
    calls = []

    @cuda.memoize()
    def build(value: int) -> int:
        calls.append(value)
        return value + 1

    assert build(1) == 2 and build(1) == 2
    assert calls == [1]


@pytest.mark.gpu
def test_fuse_uses_cupy_fusion_on_cupy_arrays(cupy: types.ModuleType) -> None:
    @cuda.fuse()
    def scaled_sum(x: Any, y: Any) -> Any:
        return x * 2 + y

    x, y = cupy.arange(3, dtype=cupy.float32), cupy.ones(3, dtype=cupy.float32)
    numpy.testing.assert_array_equal(scaled_sum(x, y).get(), [1, 3, 5])


@pytest.mark.gpu
def test_using_allocator_switches_the_allocator_inside_the_block(cupy: types.ModuleType) -> None:
    pool = cupy.cuda.MemoryPool()
    with cuda.using_allocator(pool.malloc):
        x = cupy.zeros(1024, dtype=cupy.float32)
    assert pool.used_bytes() >= x.nbytes
