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


# NOTE [0-d arrays in updates]
# compat: NumPy 1 took a 0-d array for a scalar, and a float32 scalar meeting a Python number
# gave a float64: so Chainer updated a shape-() float32 parameter (L.PReLU's default W, a
# learned temperature) with its hyperparameters in double precision (``v *= momentum`` ran in
# float64 and was rounded back once), where NumPy 2 stays in float32. During an update, such a
# parameter, its gradient and its state arrays are therefore seen as _Numpy1Scalar views,
# whose ufuncs take a Python number operand as a NumPy float64 or int64, as NumPy 1 did, and
# give their 0-d results as _Numpy1Scalar again (NumPy 1 gave scalars, which promoted alike).
# A hyperparameter set as a NumPy scalar is read as that scalar then (a float32 lr keeps the
# product in float32, as on NumPy 1). Afterwards the parameter, its gradient and its state are
# the same plain arrays as before; WeightDecay's and Lasso's rates are read as set too. Limit:
# an array a hook keeps from inside the update stays such a view.
class _Numpy1Scalar(numpy.ndarray):
    """A 0-d array that meets Python numbers as NumPy 1 met a 0-d array: NOTE [0-d arrays in
    updates]."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, out: Any = None,
                        **kwargs: Any) -> Any:
        operands = [_as_numpy1_operand(x) for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(_as_numpy1_operand(o) for o in out)
        result = getattr(ufunc, method)(*operands, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out  # in place: the views themselves
        if isinstance(result, tuple):
            return tuple(_numpy1_view(r) for r in result)
        return _numpy1_view(result)


def _as_numpy1_operand(value: Any) -> Any:
    if type(value) is float:
        return numpy.float64(value)
    if type(value) is int:
        return numpy.int64(value)
    if isinstance(value, _Numpy1Scalar):
        return value.view(numpy.ndarray)
    return value


def _numpy1_view(value: Any) -> Any:
    array = numpy.asarray(value)
    return array.view(_Numpy1Scalar) if array.ndim == 0 else array


def is_numpy1_scalar(array: Any) -> bool:
    """Whether ``array`` is a 0-d NumPy float16 or float32 array, which NumPy 1 took for a
    scalar that meets Python numbers in float64 (NOTE [0-d arrays in updates]; a float64 one
    computes alike on both)."""
    return (type(array) is numpy.ndarray and array.ndim == 0
            and array.dtype in (numpy.float16, numpy.float32))


def as_numpy1_scalar(array: Any) -> Any:
    """A _Numpy1Scalar view of a 0-d NumPy array; anything else as it is."""
    if type(array) is numpy.ndarray and array.ndim == 0:
        return array.view(_Numpy1Scalar)
    return array


def weak_scalar_against(value: Any, array: Any) -> Any:
    """``weak_scalar(value)`` for arithmetic with ``array``, but the NumPy scalar as set when
    ``array`` is a _Numpy1Scalar, which meets it as NumPy 1 did (NOTE [0-d arrays in
    updates])."""
    return value if isinstance(array, _Numpy1Scalar) else weak_scalar(value)


def as_plain_array(array: Any) -> Any:
    """The plain NumPy view of a _Numpy1Scalar; anything else as it is."""
    return array.view(numpy.ndarray) if isinstance(array, _Numpy1Scalar) else array
