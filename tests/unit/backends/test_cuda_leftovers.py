"""backends.cuda's Chainer leftovers: ``cuda``/``cublas`` exist only with CuPy (AttributeError
otherwise, as in Chainer) and the cuDNN dropout-state getters refuse with RuntimeError."""

from __future__ import annotations

import subprocess
import sys

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
    assert cuda.cublas is sys.modules["cupy.cuda.cublas"]
