"""Test annotations as pytest marks: ``gpu``, ``multi_gpu(n)``, ``cudnn``, ``slow``, ``chainerx``,
``ideep``.

GPU tests also skip at run time without enough CUDA devices; cupy is imported only if installed.
Layer 8: imports only `testing.parameterized`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from collections.abc import Callable
from typing import Any

from chainer_compat.testing.parameterized import _CaseBundle, _for_each_class

try:
    import pytest
    _error: ImportError | None = None
except ImportError as error:  # pragma: no cover - pytest is a test dependency
    pytest = None  # type: ignore[assignment]
    _error = error


def is_available() -> bool:
    """Returns whether pytest, which these annotations need, can be imported."""
    return _error is None


def check_available() -> None:
    """Raises RuntimeError if pytest cannot be imported.

    Raises:
        RuntimeError: If pytest is missing.
    """
    if _error is not None:
        raise RuntimeError(
            f"{__name__} must have pytest, got {type(_error).__name__}: {_error}"
            " (install it with `pip install pytest`)")


def get_error() -> ImportError | None:
    """Returns the error raised when importing pytest, or None."""
    return _error


@functools.cache
def _cuda_device_count() -> int:
    """Returns the number of CUDA devices CuPy sees; 0 without CuPy, without CUDA, or on error."""
    if importlib.util.find_spec("cupy") is None:
        return 0
    try:
        cupy = importlib.import_module("cupy")
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001
        # A CuPy built for another CUDA, or a machine without a driver: no usable device.
        return 0


def _gpu_limit() -> int:
    # compat: CHAINER_TEST_GPU_LIMIT caps the GPUs tests may assume; negative means no cap.
    return int(os.environ.get("CHAINER_TEST_GPU_LIMIT", "-1"))


class _TooFewCudaDevices:
    """A ``skipif`` condition that is only evaluated when the test is about to run.

    pytest calls ``bool()`` on a non-string condition at setup, so collecting GPU tests neither
    imports cupy nor touches the driver.
    """

    def __init__(self, count: int) -> None:
        self.count = count

    def __bool__(self) -> bool:
        limit = _gpu_limit()
        if 0 <= limit < self.count:
            return True
        return _cuda_device_count() < self.count

    def __repr__(self) -> str:
        return f"<fewer than {self.count} CUDA devices>"


def _apply_marks(target: Any, marks: list[Any]) -> Any:
    def apply(obj: Any) -> Any:
        for mark in marks:
            obj = mark(obj)
        return obj

    return _for_each_class(target, apply)


def _mark(name: str, *args: Any, **kwargs: Any) -> Any:
    check_available()
    return getattr(pytest.mark, name)(*args, **kwargs)


def multi_gpu(gpu_num: int) -> Callable[[Any], Any]:
    """Decorator marking a test that needs ``gpu_num`` CUDA devices.

    The test gets the ``gpu`` mark (and ``multi_gpu`` when ``gpu_num`` is 2 or more) and is skipped
    when CuPy sees fewer devices, or when ``CHAINER_TEST_GPU_LIMIT`` is set below ``gpu_num``.

    Args:
        gpu_num: Number of devices the test needs.

    Returns:
        A decorator for a test function, method or class.
    """
    if not isinstance(gpu_num, int) or gpu_num < 1:
        raise ValueError(f"gpu_num must be a positive int, got {gpu_num!r}")
    marks = [_mark("gpu")]
    if gpu_num >= 2:
        marks.append(_mark("multi_gpu", gpu_num))
    marks.append(_mark(
        "skipif", _TooFewCudaDevices(gpu_num), reason=f"{gpu_num} GPUs required"))
    return lambda target: _apply_marks(target, marks)


def gpu(f: Any) -> Any:
    """Decorator marking a test that needs one CUDA device (``multi_gpu(1)``)."""
    return multi_gpu(1)(f)


def _plain_or_called(name: str, extra: Callable[[], list[Any]], args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> Any:
    # Works both as `@attr.slow` and as `@attr.slow(...)`, like pytest's own marks.
    if len(args) == 1 and not kwargs and (callable(args[0]) or isinstance(args[0], _CaseBundle)):
        return _apply_marks(args[0], [_mark(name), *extra()])
    marks = [_mark(name, *args, **kwargs), *extra()]
    return lambda target: _apply_marks(target, marks)


def _no_extra() -> list[Any]:
    return []


def _unsupported(backend: str) -> Callable[[], list[Any]]:
    return lambda: [_mark("skip", reason=f"{backend} is not supported by chainer_compat")]


def slow(*args: Any, **kwargs: Any) -> Any:
    """Marks a long-running test (``slow`` mark; deselect with ``-m 'not slow'``)."""
    return _plain_or_called("slow", _no_extra, args, kwargs)


def cudnn(*args: Any, **kwargs: Any) -> Any:
    """Marks a test that needs cuDNN (``cudnn`` mark); it is skipped without a CUDA device."""
    return _plain_or_called(
        "cudnn",
        lambda: [_mark("skipif", _TooFewCudaDevices(1), reason="cuDNN requires a GPU")],
        args, kwargs)


def chainerx(*args: Any, **kwargs: Any) -> Any:
    """Marks a ChainerX test (``chainerx`` mark); it is always skipped.

    Compat: chainer_compat has no ChainerX, so these tests cannot run.
    """
    return _plain_or_called("chainerx", _unsupported("ChainerX"), args, kwargs)


def ideep(*args: Any, **kwargs: Any) -> Any:
    """Marks an iDeep test (``ideep`` mark) and nothing more, as in Chainer.

    Chainer without iDeep runs these tests on NumPy, and so does chainer_compat (which has no
    iDeep): an iDeep ``BackendConfig`` behaves as the CPU one, so its tests still check the CPU
    code. Deselect them with ``-m 'not ideep'``.
    """
    return _plain_or_called("ideep", _no_extra, args, kwargs)
