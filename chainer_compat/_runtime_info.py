"""``print_runtime_info()``: the versions a bug report needs.

Layer 0: reads versions from package metadata; never imports CuPy.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from typing import TextIO

import numpy

__all__ = ["print_runtime_info"]


def _cupy_version() -> str:
    # Asking must not import CuPy (STYLE.md example 3): an imported CuPy tells its version, an
    # installed one (cupy, cupy-cuda12x, ...) is found by the top-level package it provides.
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        return str(cupy.__version__)
    distributions = importlib.metadata.packages_distributions().get("cupy", [])
    if not distributions:
        return "Not Available"
    return f"{importlib.metadata.version(distributions[0])} (not imported)"


def print_runtime_info(out: TextIO | None = None) -> None:
    """Writes the platform and the versions of chainer_compat, NumPy and CuPy.

    Args:
        out: Stream to write to; ``sys.stdout`` when None.
    """
    from chainer_compat import __version__, compat_version  # set by the package's top layer

    lines = [
        f"Platform: {platform.platform()}",
        f"Chainer: {__version__} (chainer_compat {compat_version})",
        "ChainerX: Not Available",
        f"NumPy: {numpy.__version__}",
        f"CuPy: {_cupy_version()}",
        "iDeep: Not Available",
    ]
    (out or sys.stdout).write("\n".join(lines) + "\n")
