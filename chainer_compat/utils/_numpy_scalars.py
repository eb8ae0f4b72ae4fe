"""NumPy scalars used as Python numbers, where Chainer's arithmetic relied on NumPy 1 for that.

Layer 1: imports numpy only.
"""

from __future__ import annotations

from typing import Any

import numpy


# NOTE [NumPy scalars in updates]
# compat: Chainer ran on NumPy 1, whose value-based casting computed ``lr * grad`` in the
# gradient's dtype even when ``lr`` was a NumPy float64 scalar (a schedule computed with np.cos,
# say), and computed ``np.float32 * 0.5`` in float64. NumPy 2 (NEP 50) does both the other way,
# so an update would round differently. Optimizer hyperparameters and the optimizer hooks' rates
# are therefore used as Python numbers, which NumPy 2 treats as NumPy 1 treated NumPy scalars.
def weak_scalar(value: Any) -> Any:
    """``value`` as a Python number if it is a NumPy scalar or a 0-d NumPy array (NumPy 1 cast
    both by value); anything else as it is."""
    if isinstance(value, numpy.generic) or (
            type(value) is numpy.ndarray and value.ndim == 0):
        return value.item()
    return value
