"""``CUDAProfileHook``: marks every forward and backward of the hooked functions as an NVTX
range, so they show up by name in NVIDIA profilers (Nsight Systems, nvprof).

Layer 8: imports ``backends.cuda`` and ``function_hook``; CuPy is reached only when a hook is
constructed, never when this module is imported.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.backends import cuda
from chainer_compat.function_hook import FunctionHook


def _nvtx_available(cupy: Any) -> bool:
    nvtx = getattr(cupy.cuda, "nvtx", None)
    if nvtx is None:
        return False
    # CuPy 13 and later say so on the module; older CuPy had cupy.cuda.nvtx_enabled.
    available = getattr(nvtx, "available", None)
    if available is None:
        available = getattr(cupy.cuda, "nvtx_enabled", False)
    return bool(available)


class CUDAProfileHook(FunctionHook):
    """Function hook that wraps each forward and backward in an NVTX range.

    The ranges are named ``<function label>.forward`` and ``<function label>.backward`` and
    nest like the calls. Use it as any function hook::

        with chainer.function_hooks.CUDAProfileHook():
            loss = model(x)
            loss.backward()

    Raises:
        RuntimeError: At construction, if CUDA is not available (CuPy missing or no device), or
            if the installed CuPy was built without NVTX.
    """

    name = "CUDAProfileHook"

    def __init__(self) -> None:
        cuda.check_cuda_available()
        cupy = cuda.cupy
        if not _nvtx_available(cupy):
            # compat: Chainer's message.
            raise RuntimeError("nvtx is required for CUDAProfileHook")
        self._nvtx = cupy.cuda.nvtx

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._nvtx.RangePush(function.label + ".forward")

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._nvtx.RangePop()

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._nvtx.RangePush(function.label + ".backward")

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        self._nvtx.RangePop()
