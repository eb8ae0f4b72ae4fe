"""Pieces shared by the math functions: the float-input unary and reduction bases, axis helpers.

Layer 5: imports only numpy, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class FloatUnary(FunctionNode):
    """A function of one float input ``x``; subclasses set ``_label`` and the math."""

    _label = ""

    @property
    def label(self) -> str:
        return self._label or type(self).__name__

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")


class AxisReduction(FunctionNode):
    """A reduction of one float input ``x`` over ``axis`` (all axes when None).

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ValueError: If ``axis`` repeats an axis.
    """

    keepdims = False

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = normalize_axis(axis)
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axes(in_types[0], self.axis)


def is_int(value: Any) -> bool:
    """Whether ``value`` is a Python or NumPy integer (and not a bool)."""
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


def normalize_axis(axis: Any) -> tuple[int, ...] | None:
    """Returns ``axis`` (None, an int or a tuple of ints) as None or a tuple of ints.

    Raises:
        TypeError: If ``axis`` has another type.
        ValueError: If the tuple repeats an axis.
    """
    if axis is None:
        return None
    if is_int(axis):
        return (int(axis),)
    if isinstance(axis, tuple) and all(is_int(a) for a in axis):
        if len(set(axis)) != len(axis):
            # compat: Chainer's wording.
            raise ValueError("duplicate value in axis: ({})".format(", ".join(map(str, axis))))
        return tuple(int(a) for a in axis)
    # compat: Chainer's sentence first, which code may match.
    raise TypeError(f"None, int or tuple of int are required\naxis must be None, an int or a "
                    f"tuple of ints, got {axis!r}")


def check_axes(in_type: Any, axes: tuple[int, ...] | None) -> None:
    """Type-checks that every axis in ``axes`` (negative ones too) exists in ``in_type``."""
    if axes is None:
        return
    for axis in axes:
        if axis >= 0:
            type_check.expect(axis < in_type.ndim)
        else:
            type_check.expect(-axis - 1 < in_type.ndim)


def reduced_axes(ndim: int, axes: tuple[int, ...] | None) -> tuple[int, ...]:
    """Returns the sorted, non-negative axes a reduction over ``axes`` removes."""
    if axes is None:
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in axes)) if ndim else ()


def keepdims_shape(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> tuple[int, ...]:
    """Returns ``shape`` with the reduced axes set to one (the shape ``keepdims=True`` gives)."""
    removed = reduced_axes(len(shape), axes)
    return tuple(1 if i in removed else size for i, size in enumerate(shape))
