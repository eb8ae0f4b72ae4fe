"""Shared machinery of the special functions (``erf``, ``lgamma``, ``ndtr``, ...): the lazy
lookup of ``scipy.special`` on CPU and ``cupyx.scipy.special`` on GPU, and their unary base.

Layer 5: imports the core and the shared math helpers; SciPy and CuPy only when first used.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat import utils
from chainer_compat import warnings as compat_warnings
from chainer_compat.functions.math._common import FloatUnary

# The CPU kernel per function label, found once: SciPy's ufunc, or a slow fallback.
_cpu_kernels: dict[str, Callable[..., Any]] = {}


def _ndtr_scalar(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# compat: Chainer computes these three elementwise in Python when SciPy is missing (after a
# PerformanceWarning); every other special function needs SciPy on CPU.
_FALLBACKS: dict[str, Callable[[float], float]] = {
    "erf": math.erf, "erfc": math.erfc, "ndtr": _ndtr_scalar}


def _scipy_special() -> Any:
    """Returns ``scipy.special``; raises ImportError when SciPy is not installed."""
    return importlib.import_module("scipy.special")


def cpu_kernel(label: str, scipy_name: str) -> Callable[..., Any]:
    """Returns the CPU implementation of ``scipy.special.<scipy_name>``.

    Args:
        label: The function's label: the key of its fallback and of the cache, and the name
            in the messages.
        scipy_name: The name of the ufunc in ``scipy.special``.

    Raises:
        ImportError: If SciPy is missing and the function has no fallback.
    """
    kernel = _cpu_kernels.get(label)
    if kernel is not None:
        return kernel
    try:
        kernel = getattr(_scipy_special(), scipy_name)
    except ImportError as error:
        fallback = _FALLBACKS.get(label)
        if fallback is None:
            # compat: Chainer's first sentence; the rest says what to do.
            raise ImportError(
                f"SciPy is not available. Forward computation of {label} in CPU cannot be "
                f"done without scipy.special.{scipy_name}: install SciPy with "
                f"`pip install scipy`.") from error
        warnings.warn(
            f"SciPy is not available. Forward computation of {label} in CPU can be slow "
            "without SciPy: install it with `pip install scipy`.",
            compat_warnings.PerformanceWarning, stacklevel=2)
        kernel = numpy.vectorize(fallback, otypes=[numpy.float64])
    _cpu_kernels[label] = kernel
    return kernel


def gpu_kernel(scipy_name: str) -> Callable[..., Any]:
    """Returns ``cupyx.scipy.special.<scipy_name>`` (CuPy is loaded by then: the input is a
    CuPy array)."""
    return getattr(importlib.import_module("cupyx.scipy.special"), scipy_name)


class SpecialUnary(FloatUnary):
    """A special function of one float input; subclasses set the names and the backward.

    ``_scipy_name`` names the ufunc in ``scipy.special`` and ``cupyx.scipy.special``;
    ``_retain`` says what backward reads: ``"x"``, ``"y"`` or ``"xy"``.
    """

    _scipy_name = ""
    _retain = "x"

    def _keep_for_backward(self) -> None:
        if "x" in self._retain:
            self.retain_inputs((0,))
        if "y" in self._retain:
            self.retain_outputs((0,))

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        kernel = cpu_kernel(self._label, self._scipy_name)
        self._keep_for_backward()
        return utils.force_array(kernel(x), x.dtype),

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._keep_for_backward()
        return utils.force_array(gpu_kernel(self._scipy_name)(x), x.dtype),
