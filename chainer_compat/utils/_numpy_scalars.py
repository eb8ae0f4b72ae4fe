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


# NOTE [NumPy scalars as constants]
# compat: Chainer's operators do a little arithmetic on a constant before casting it to the
# Variable's dtype: ``x / c`` multiplies by ``1. / c``, and the gradient of ``x ** c`` takes
# ``c - 1`` and ``c - 2``. On NumPy 1 a float16 or float32 scalar meeting a Python number gave
# a float64 (a 0-d array too), so that arithmetic ran in double precision; NumPy 2 keeps the
# scalar's dtype, and ``x / numpy.float16(1.3)`` would be off by 2e-4. Such constants are taken
# as float64 before that arithmetic, which is what NumPy 1 did. (A NumPy float64 or integer
# scalar promotes alike on both.)
def numpy1_constant(value: Any) -> Any:
    """``value`` as NumPy 1 promoted it against a Python number: a float16 or float32 scalar
    (or 0-d array) as a NumPy float64 scalar; anything else as it is."""
    if isinstance(value, (numpy.float16, numpy.float32)) or (
            type(value) is numpy.ndarray and value.ndim == 0
            and value.dtype in (numpy.float16, numpy.float32)):
        return numpy.float64(value)
    return value
