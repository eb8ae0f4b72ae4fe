"""Backward steps run with their arrays' GPU current (NOTE [backward device] in _engine.py).

A stand-in CuPy with two devices runs here on any machine: its arrays are NumPy arrays that carry
a device, and its device objects keep a current-device stack, as CuPy's do. A real two-GPU test
sits beside it for machines that have them.
"""

from __future__ import annotations

import sys
import types

import numpy
import pytest

import chainer_compat
from chainer_compat import FunctionNode, Variable, backend
from chainer_compat.backends import _cuda


class _TwoDevices:
    """The CUDA runtime of the stand-in: two devices and the current one."""

    def __init__(self) -> None:
        self.current = [0]
        self.entered: list[int] = []


def _stand_in_cupy(runtime: _TwoDevices) -> types.ModuleType:
    module = types.ModuleType("cupy")

    class Device:
        def __init__(self, device_id: int = 0) -> None:
            self.id = int(device_id)

        def __enter__(self) -> Device:
            runtime.entered.append(self.id)
            runtime.current.append(self.id)
            return self

        def __exit__(self, *exc_info: object) -> None:
            runtime.current.pop()

        def use(self) -> None:
            runtime.current[-1] = self.id

    class ndarray(numpy.ndarray):  # a CuPy array as far as chainer_compat can tell
        device: Device | None = None

        def __array_finalize__(self, obj: object) -> None:
            self.device = getattr(obj, "device", None)

    module.ndarray = ndarray
    module.cuda = types.SimpleNamespace(
        Device=Device,
        runtime=types.SimpleNamespace(getDevice=lambda: runtime.current[-1],
                                      getDeviceCount=lambda: 2))
    return module


@pytest.fixture
def two_gpus(monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, _TwoDevices]:
    runtime = _TwoDevices()
    module = _stand_in_cupy(runtime)
    monkeypatch.setitem(sys.modules, "cupy", module)
    monkeypatch.setattr(backend, "_cupy_ndarray_type", None)
    monkeypatch.setattr(_cuda, "_state", None)
    return module, runtime


def _on(module: types.ModuleType, device_id: int, values: list[float]) -> numpy.ndarray:
    array = numpy.array(values, numpy.float32).view(module.ndarray)
    array.device = module.cuda.Device(device_id)
    return array


class RecordsDevice(FunctionNode):
    """y = 2x; its backward notes which device was current."""

    def __init__(self, runtime: _TwoDevices) -> None:
        self.runtime = runtime
        self.seen: list[int] = []
        self.seen_in_forward: list[int] = []

    def forward(self, inputs):
        self.seen_in_forward.append(self.runtime.current[-1])
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        self.seen.append(self.runtime.current[-1])
        return grad_outputs[0] * 2.0,


def test_a_step_on_another_gpu_makes_that_gpu_current(two_gpus):
    module, runtime = two_gpus
    x = Variable(_on(module, 1, [1.0, 2.0]))
    first, second = RecordsDevice(runtime), RecordsDevice(runtime)
    y, = second.apply(first.apply((x,)))
    y.grad = _on(module, 1, [1.0, 1.0])
    assert runtime.current == [0]
    y.backward()
    assert first.seen == [1] and second.seen == [1]
    assert runtime.current == [0]  # restored after each step
    numpy.testing.assert_array_equal(numpy.asarray(x.grad), [4.0, 4.0])
    assert x.grad.device.id == 1
    assert y.grad is None  # consumed, as on the current device (and in Chainer)


@pytest.mark.parametrize("path", ["retain_grad", "grad", "two_outputs"])
def test_the_general_path_switches_gpu_too(two_gpus, path):
    module, runtime = two_gpus
    x = Variable(_on(module, 1, [1.0, 2.0]))
    first = RecordsDevice(runtime)
    h, = first.apply((x,))
    ones = _on(module, 1, [1.0, 1.0])
    if path == "two_outputs":
        second = SplitsInTwo(runtime)
        y, other = second.apply((h,))
        chainer_compat.backward([y, other], [Variable(ones), Variable(ones)])
        numpy.testing.assert_array_equal(numpy.asarray(x.grad), [10.0, 10.0])
    else:
        second = RecordsDevice(runtime)
        y, = second.apply((h,))
        if path == "grad":
            gx, = chainer_compat.grad([y], [x], grad_outputs=[Variable(ones)])
            assert gx.array.device.id == 1
        else:
            y.grad = ones
            y.backward(retain_grad=True)
            assert x.grad.device.id == 1
    assert first.seen == [1] and second.seen == [1] and runtime.current == [0]


class SplitsInTwo(FunctionNode):
    """(2x, 3x); its backward notes which device was current."""

    def __init__(self, runtime: _TwoDevices) -> None:
        self.runtime = runtime
        self.seen: list[int] = []

    def forward(self, inputs):
        return inputs[0] * 2, inputs[0] * 3

    def backward(self, indexes, grad_outputs):
        self.seen.append(self.runtime.current[-1])
        ga, gb = grad_outputs
        return ga * 2.0 + gb * 3.0,


def test_a_step_on_the_current_gpu_enters_no_device(two_gpus):
    module, runtime = two_gpus
    runtime.current = [1]
    x = Variable(_on(module, 1, [1.0, 2.0]))
    node = RecordsDevice(runtime)
    y, = node.apply((x,))
    y.grad = _on(module, 1, [1.0, 1.0])
    y.backward()
    assert node.seen_in_forward == [1] and node.seen == [1]
    assert runtime.entered == []  # apply and the step found device 1 current already


def test_apply_on_another_gpu_runs_forward_there_and_restores_the_current_one(two_gpus):
    module, runtime = two_gpus
    node = RecordsDevice(runtime)
    y, = node.apply((_on(module, 1, [1.0]),))
    assert node.seen_in_forward == [1] and runtime.entered == [1]
    assert runtime.current == [0]
    assert y.array.device.id == 1


class OldStyleRecordsDevice(chainer_compat.Function):
    """An old-style y = 2x whose backward notes which device was current."""

    def __init__(self, runtime: _TwoDevices) -> None:
        self.runtime = runtime
        self.seen: list[int] = []

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, inputs, grad_outputs):
        self.seen.append(self.runtime.current[-1])
        return grad_outputs[0] * 2.0,


@pytest.mark.parametrize("current", [0, 1])
def test_an_old_style_backward_runs_on_its_arrays_gpu(two_gpus, current):
    module, runtime = two_gpus
    runtime.current = [current]
    function = OldStyleRecordsDevice(runtime)
    y = function(Variable(_on(module, 1, [1.0, 2.0])))
    y.grad = _on(module, 1, [1.0, 1.0])
    runtime.entered.clear()
    y.backward()
    assert function.seen == [1] and runtime.current == [current]
    # The engine's step enters device 1 when it is not current; the adapter inside it then
    # finds it current and enters nothing more.
    assert runtime.entered == ([] if current == 1 else [1])


def test_hooks_run_inside_the_device_of_the_step(two_gpus):
    module, runtime = two_gpus
    from chainer_compat import function_hook

    class Hook(function_hook.FunctionHook):
        name = "devices"

        def __init__(self) -> None:
            self.seen: list[int] = []

        def backward_preprocess(self, function, in_data, out_grad):
            self.seen.append(runtime.current[-1])

        def backward_postprocess(self, function, in_data, out_grad):
            self.seen.append(runtime.current[-1])

    x = Variable(_on(module, 1, [3.0]))
    node = RecordsDevice(runtime)
    y, = node.apply((x,))
    y.grad = _on(module, 1, [1.0])
    hook = Hook()
    with hook:
        y.backward()
    assert hook.seen == [1, 1] and node.seen == [1]


def test_numpy_steps_enter_no_device(two_gpus):
    module, runtime = two_gpus
    x = Variable(numpy.array([1.0], numpy.float32))
    node = RecordsDevice(runtime)
    y, = node.apply((x,))
    y.backward()
    assert runtime.entered == [] and node.seen == [0]


@pytest.mark.gpu
def test_on_two_real_gpus_backward_allocates_on_the_arrays_gpu():
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two CUDA devices")

    class AllocatesGradient(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            fresh = cupy.full(grad_outputs[0].shape, 2.0, grad_outputs[0].dtype)
            return Variable(fresh) * grad_outputs[0],

    with cupy.cuda.Device(1):
        x = Variable(cupy.arange(3, dtype=cupy.float32))
        y, = AllocatesGradient().apply((x,))
        y.grad = cupy.ones(3, cupy.float32)
    with cupy.cuda.Device(0):
        y.backward()
    assert x.grad.device.id == 1
    cupy.testing.assert_array_equal(x.grad, cupy.full(3, 2.0, cupy.float32))
