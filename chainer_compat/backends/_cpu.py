"""Where Chainer 7.8.1 defines its CPU device class: kept so that pickles naming
``chainer.backends._cpu.CpuDevice`` load (NOTE [pickles] in variable.py).

Layer 1: imports ``backend``, which defines the class.
"""

from __future__ import annotations

from chainer_compat.backend import CpuDevice

__all__ = ["CpuDevice"]
