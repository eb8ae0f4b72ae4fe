"""``repeat``: repeats each element of an array, like ``numpy.repeat``.

Layer 5: imports backend, utils, variable and function_node.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import axis_range_message
from chainer_compat.utils import type_check


def _is_integer(value: Any) -> bool:
    # compat: NumPy takes bools as repetition counts, so Chainer does too.
    return isinstance(value, (int, numpy.integer))


class Repeat(FunctionNode):
    """Repeats the elements of its input ``repeats`` times along ``axis``.

    Raises:
        TypeError: If ``repeats`` is not an int or a tuple of ints, or ``axis`` is not an int
            or None.
        ValueError: If a repetition count is negative.
    """

    def __init__(self, repeats: Any, axis: int | None = None) -> None:
        if _is_integer(repeats):
            self.repeats: tuple[int, ...] = (int(repeats),)
        elif isinstance(repeats, tuple) and all(_is_integer(r) for r in repeats):
            self.repeats = tuple(int(r) for r in repeats)
        else:
            raise TypeError(f"repeats must be int or tuple of ints, got {repeats!r}")
        if any(r < 0 for r in self.repeats):
            raise ValueError(
                f"all elements in repeats must be zero or larger, got {self.repeats}")
        if axis is not None and (not _is_integer(axis) or isinstance(axis, bool)):
            raise TypeError(f"axis must be int or None, got {axis!r}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axis is not None:
            # NumPy's repeat reads a 0-d array as 1-d along an axis (as Chainer passes it on).
            actual_ndim = type_check.eval(in_types[0].ndim)
            ndim = max(actual_ndim, 1)
            if not -ndim <= self.axis < ndim:
                # compat: Chainer leaves the axis to NumPy's repeat, whose AxisError is a
                # ValueError and an IndexError.
                raise numpy.exceptions.AxisError(
                    self.axis, ndim,
                    axis_range_message(self.axis, ndim)
                    + (" (x is 0-d, which repeat reads as 1-d)" if actual_ndim == 0 else "")
                    + "; pass an axis of x, or None to repeat the flattened x")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        # compat: Chainer keeps the input, and exporters (onnx-chainer) read it from the node.
        self.retain_inputs((0,))
        self._in_shape = x.shape
        repeats = self.repeats[0] if len(self.repeats) == 1 else list(self.repeats)
        return backend.get_array_module(x).repeat(x, repeats, self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return RepeatGrad(self.repeats, self.axis, self._in_shape).apply(grad_outputs)


class RepeatGrad(FunctionNode):
    """Gradient of Repeat: sums each group of repeated entries; its backward is Repeat."""

    def __init__(self, repeats: tuple[int, ...], axis: int | None,
                 in_shape: tuple[int, ...], in_dtype: Any = None) -> None:
        self.repeats = repeats
        self.axis = axis
        self.in_shape = in_shape
        # Chainer's fourth argument; the gradient keeps gy's dtype, so it is only recorded.
        self.in_dtype = in_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        if self.axis is None or not self.in_shape:
            # A 0-d input repeated along an axis is repeated as a one-entry 1-d array.
            gy = gy.reshape(-1)
            axis = 0
            length = utils.size_of_shape(self.in_shape)
        else:
            axis = self.axis % len(self.in_shape)
            length = self.in_shape[axis]
        if len(self.repeats) == 1:
            # Every entry is repeated equally: split the axis in (length, repeats) and sum.
            split_shape = gy.shape[:axis] + (length, self.repeats[0]) + gy.shape[axis + 1:]
            gx = gy.reshape(split_shape).sum(axis=axis + 1)
        else:
            # Entry i owns repeats[i] consecutive output entries; add each into its owner.
            owner = xp.repeat(xp.arange(length), list(self.repeats))
            gx = xp.zeros(gy.shape[:axis] + (length,) + gy.shape[axis + 1:], gy.dtype)
            target = xp.moveaxis(gx, axis, 0)
            values = xp.moveaxis(gy, axis, 0)
            utils.add_at(target, owner, values)
        return utils.force_array(gx.reshape(self.in_shape), gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return Repeat(self.repeats, self.axis).apply(grad_outputs)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> variable.Variable:
    """Repeats each element of ``x``, like ``numpy.repeat``.

    Args:
        x: Input Variable or array.
        repeats: An int, or a tuple with one count per element along ``axis``.
        axis: The axis to repeat along; None repeats the flattened array.

    Returns:
        The repeated Variable.

    Raises:
        TypeError: If ``repeats`` or ``axis`` has the wrong type.
        ValueError: If a repetition count is negative.
        numpy.exceptions.AxisError: If ``axis`` is out of range (a ValueError and an
            IndexError).
    """
    y, = Repeat(repeats, axis).apply((x,))
    return y
