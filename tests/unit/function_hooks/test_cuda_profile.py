"""CUDAProfileHook: needs CUDA and NVTX at construction, and wraps each forward and backward of
the hooked functions in a named NVTX range (checked with a recording stand-in for cupy.cuda.nvtx,
and on a real device when there is one)."""

from __future__ import annotations

import subprocess
import sys
import types

import numpy
import pytest

from chainer_compat import functions as F
from chainer_compat.backends import cuda
from chainer_compat.function_hooks.cuda_profile import CUDAProfileHook
from chainer_compat.variable import Variable
from tests.conftest import cuda_device_count


class _RecordingNvtx:
    available = True

    def __init__(self):
        self.events = []

    def RangePush(self, message):  # noqa: N802 - CuPy's name
        self.events.append(("push", message))

    def RangePop(self):  # noqa: N802 - CuPy's name
        self.events.append(("pop",))


@pytest.fixture
def fake_cupy(monkeypatch):
    nvtx = _RecordingNvtx()
    stub = types.SimpleNamespace(cuda=types.SimpleNamespace(nvtx=nvtx))
    monkeypatch.setattr(cuda, "check_cuda_available", lambda: None)
    monkeypatch.setattr(cuda, "cupy", stub, raising=False)
    return stub


def test_importing_the_hook_does_not_import_cupy():
    code = "import sys, chainer_compat.function_hooks.cuda_profile; print('cupy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.skipif(cuda_device_count() > 0, reason="checks the machine without CUDA")
def test_construction_without_cuda_raises_runtime_error():
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
        CUDAProfileHook()


def test_hook_has_chainers_name():
    assert CUDAProfileHook.name == "CUDAProfileHook"


def test_forward_and_backward_become_nested_named_ranges(fake_cupy):
    x = Variable(numpy.array([1.0, -2.0]))
    with CUDAProfileHook():
        y = F.sum(F.relu(x))
        y.backward()
    events = fake_cupy.cuda.nvtx.events
    assert events[:4] == [("push", "ReLU.forward"), ("pop",), ("push", "Sum.forward"), ("pop",)]
    # Every push is popped, never below zero depth: the ranges nest like the calls.
    depth = 0
    for event in events:
        depth += 1 if event[0] == "push" else -1
        assert depth >= 0
    assert depth == 0
    pushed = [event[1] for event in events if event[0] == "push"]
    assert pushed.index("Sum.backward") < pushed.index("ReLU.backward")


@pytest.mark.parametrize("namespace", [
    {},
    {"nvtx": types.SimpleNamespace(available=False)},
    {"nvtx": types.SimpleNamespace(), "nvtx_enabled": False},
])
def test_cupy_without_nvtx_raises_runtime_error(monkeypatch, namespace):
    monkeypatch.setattr(cuda, "check_cuda_available", lambda: None)
    monkeypatch.setattr(cuda, "cupy",
                        types.SimpleNamespace(cuda=types.SimpleNamespace(**namespace)),
                        raising=False)
    with pytest.raises(RuntimeError, match="^nvtx is required for CUDAProfileHook$"):
        CUDAProfileHook()


def test_legacy_nvtx_enabled_flag_is_honoured(monkeypatch):
    nvtx = types.SimpleNamespace(RangePush=lambda message: None, RangePop=lambda: None)
    monkeypatch.setattr(cuda, "check_cuda_available", lambda: None)
    monkeypatch.setattr(cuda, "cupy", types.SimpleNamespace(
        cuda=types.SimpleNamespace(nvtx=nvtx, nvtx_enabled=True)), raising=False)
    assert CUDAProfileHook().name == "CUDAProfileHook"


@pytest.mark.gpu
def test_runs_on_a_cuda_device(cupy):
    if not getattr(cupy.cuda.nvtx, "available", getattr(cupy.cuda, "nvtx_enabled", False)):
        pytest.skip("CuPy built without NVTX")
    x = Variable(cupy.arange(3, dtype=cupy.float32))
    with CUDAProfileHook():
        y = F.sum(x * x)
        y.backward()
    assert cupy.allclose(x.grad, 2 * x.array)
