"""Pieces shared by the activation functions: the float-input base class and axis helpers.

Layer 5: imports only numpy, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class FloatActivation(FunctionNode):
    """A function of one float array ``x``, type-checked cheaply on the common path."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # Activations sit on every line of a model: a float input needs no expressions.
        if len(in_data) == 1 and in_data[0].dtype.kind == "f":
            return
        super()._check_data_type_forward(in_data)


def is_int(value: Any) -> bool:
    """Whether ``value`` is a Python or NumPy integer (and not a bool)."""
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


def check_axis(in_type: Any, axis: int) -> None:
    """Type-checks that ``axis`` (negative ones too) names an axis of ``in_type``."""
    type_check.expect(-in_type.ndim <= axis, in_type.ndim > axis)


def extended_shape(param_shape: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """Shape that lines a parameter of ``param_shape`` up with axes 1.. of an ``ndim`` array."""
    return (1,) + tuple(param_shape) + (1,) * (ndim - len(param_shape) - 1)


def reduction_axes(param_ndim: int, ndim: int) -> tuple[int, ...]:
    """Axes to sum a gradient over to bring it back to a parameter of ``param_ndim`` dims."""
    return (0,) + tuple(range(1 + param_ndim, ndim))


def in_c_order(array: Any) -> Any:
    """``array`` laid out in C order on NumPy (itself when it already is).

    compat: Chainer's CPU activations start from ``x.copy()`` (or ``gy.copy()``), which is C
    order whatever the input's layout, and a later reduction adds in an order set by the
    layout (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
    """
    if type(array) is numpy.ndarray and not array.flags.c_contiguous:
        return array.copy(order="C")
    return array
