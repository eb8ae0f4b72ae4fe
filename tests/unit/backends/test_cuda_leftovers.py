"""backends.cuda's Chainer leftovers: ``cuda``/``cublas`` exist only with CuPy (AttributeError
otherwise, as in Chainer) and the cuDNN dropout-state getters refuse with RuntimeError."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from chainer_compat.backends import cuda
from tests.conftest import cuda_device_count


def test_cudnn_dropout_states_raise_runtime_error():
    with pytest.raises(RuntimeError, match=r"^cuDNN is not enabled\..*no.*drop the call"):
        cuda.get_cudnn_dropout_states()
    with pytest.raises(RuntimeError, match=r"^cuDNN is not enabled\."):
        cuda.get_cudnn_dropout_states_core(0)


@pytest.mark.skipif(cuda_device_count() > 0, reason="checks the machine without CuPy")
def test_cuda_and_cublas_are_missing_without_cupy():
    code = ("import chainer_compat.backends.cuda as c\n"
            "for name in ('cuda', 'cublas'):\n"
            "    try:\n"
            "        getattr(c, name)\n"
            "    except AttributeError as error:\n"
            "        print(name, 'missing', 'not available' in str(error))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split("\n")[:2] == ["cuda missing True", "cublas missing True"]


@pytest.mark.gpu
def test_cuda_and_cublas_are_cupys_modules(cupy):
    assert cuda.cuda is cupy.cuda
    assert cuda.cublas is cupy.cuda.cublas


def _fake_cupy(**cuda_attributes):
    """A module shaped like CuPy 9+: cupy.cuda serves cublas through a module __getattr__."""
    fake_cuda = types.ModuleType("fake_cupy.cuda")
    fake_cuda.Device = fake_cuda.Event = fake_cuda.Stream = type("Placeholder", (), {})
    fake_cuda.__getattr__ = lambda name: cuda_attributes[name]
    fake = types.ModuleType("fake_cupy")
    fake.ndarray = type("ndarray", (), {})
    fake.cuda = fake_cuda
    return fake


def test_cublas_is_read_as_cupys_lazy_attribute():
    # CuPy 9+ has no module cupy.cuda.cublas to import: the name loads on attribute access.
    binding = types.ModuleType("cupy_backends.cuda.libs.cublas")
    names = cuda._real_cupy_names(_fake_cupy(cublas=binding))
    assert names["cublas"] is binding
    assert "cublas" not in cuda._real_cupy_names(_fake_cupy())


def test_a_binding_missing_with_cuda_available_says_so(monkeypatch):
    # The message of a missing cuBLAS must not claim that CUDA itself is unavailable.
    saved = {name: cuda.__dict__[name] for name in cuda._LAZY_NAMES if name in cuda.__dict__}
    for name in saved:
        monkeypatch.delitem(cuda.__dict__, name)
    monkeypatch.setattr(cuda, "_resolve_cupy_names", lambda: {"available": True})
    try:
        with pytest.raises(AttributeError, match=r"cupy\.cuda\.cublas did not load") as error:
            cuda.cublas
        assert "CUDA is not available" not in str(error.value)
    finally:
        for name in cuda._LAZY_NAMES:
            cuda.__dict__.pop(name, None)
        cuda.__dict__.update(saved)
