"""Finds CuPy on first demand: one cached probe of whether it imports and sees a CUDA device.

Layer 1 (private helper of ``backend`` and ``backends.cuda``): imports only the standard library.
Nothing here runs at import time; the probe imports cupy, so only GPU-bound paths may call it.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType
from typing import NamedTuple

INSTALL_HINT = (
    "Install CuPy for your CUDA version with pip install 'chainer_compat[cuda12]' (CUDA 12) or "
    "pip install 'chainer_compat[cuda13]' (CUDA 13), or keep the arrays on the CPU as NumPy arrays."
)


class _Probe(NamedTuple):
    cupy: ModuleType | None  # the module when ``import cupy`` succeeded, even without a device
    device_count: int
    error: str | None  # why CUDA is unavailable; None when it is available


_state: _Probe | None = None
_lock = threading.Lock()


def _run_probe() -> _Probe:
    try:
        cupy = importlib.import_module("cupy")
    except Exception as error:  # noqa: BLE001 - a broken install raises ImportError, OSError or CUDA errors
        return _Probe(None, 0, f"import cupy failed with {type(error).__name__}: {error}")
    try:
        device_count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:  # noqa: BLE001 - no driver, or one older than the CuPy wheel
        reason = f"CuPy could not count CUDA devices ({type(error).__name__}: {error})"
        return _Probe(cupy, 0, reason)
    if device_count < 1:
        return _Probe(cupy, 0, "CuPy is installed but sees no CUDA device "
                               "(check the driver and CUDA_VISIBLE_DEVICES)")
    return _Probe(cupy, device_count, None)


def probe() -> _Probe:
    """Returns the cached probe result, importing cupy the first time."""
    state = _state
    if state is None:
        state = _probe_once()
    return state


def _probe_once() -> _Probe:
    global _state
    with _lock:
        if _state is None:
            _state = _run_probe()
        return _state


def cupy_module() -> ModuleType | None:
    """Returns the cupy module if it imports (with or without a device), else None."""
    return probe().cupy


def is_available() -> bool:
    """Returns whether CuPy imports and sees at least one CUDA device."""
    return probe().error is None


def device_count() -> int:
    """Returns the number of CUDA devices CuPy sees (0 when CUDA is unavailable)."""
    return probe().device_count


def unavailable_message() -> str:
    """Returns the message of the error raised when CUDA is needed but unavailable."""
    reason = probe().error or "CUDA is available"
    # compat: Chainer's message starts with "CUDA environment is not correctly set up".
    return (
        "CUDA environment is not correctly set up: CUDA is not available (CuPy must import and "
        f"see a CUDA device), got: {reason}.\n{INSTALL_HINT}"
    )


def require() -> ModuleType:
    """Returns the cupy module; raises RuntimeError with an install hint without CUDA."""
    state = probe()
    if state.error is not None or state.cupy is None:
        raise RuntimeError(unavailable_message())
    return state.cupy


def check_available() -> None:
    """Raises RuntimeError with an install hint unless CUDA is available."""
    if probe().error is not None:
        raise RuntimeError(unavailable_message())
