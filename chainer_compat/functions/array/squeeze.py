"""``squeeze``: removes axes of length one.

Layer 5: imports backend, variable, function_node and the ``reshape`` function.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import axis_range_message, check_axis, is_int
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.utils import type_check


class Squeeze(FunctionNode):
    """Removes the length-one axes in ``axis`` (all of them when None).

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
    """

    def __init__(self, axis: Any = None) -> None:
        if axis is None:
            self.axis: tuple[int, ...] | None = None
        elif is_int(axis):
            self.axis = (int(axis),)
        elif isinstance(axis, tuple) and all(is_int(a) for a in axis):
            self.axis = tuple(int(a) for a in axis)
        else:
            raise TypeError(f"axis must be None, int or tuple of ints, got {axis!r}")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axis is not None:
            for axis in self.axis:
                check_axis(in_types[0], axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        if self.axis is not None:
            for axis in self.axis:
                if not -x.ndim <= axis < x.ndim:
                    # Reached only with type checks off, where Chainer's NumPy raises this.
                    raise numpy.exceptions.AxisError(
                        axis, x.ndim, axis_range_message(axis, x.ndim) + "; pass an axis of x")
                if x.shape[axis] != 1:
                    # compat: NumPy's wording, which Chainer's users see.
                    raise ValueError(
                        f"squeeze can only remove axes of length one, got axis {axis} of "
                        f"length {x.shape[axis]} in x.shape={x.shape}: cannot select an axis "
                        "to squeeze out which has size not equal to one; name only axes of "
                        "length one, or None for all of them")
        return backend.get_array_module(x).squeeze(x, self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return reshape(grad_outputs[0], self._in_shape),


def squeeze(x: Any, axis: Any = None) -> variable.Variable:
    """Removes axes of length one from ``x``.

    Args:
        x: Input Variable or array.
        axis: An int or tuple of ints naming the axes to remove, or None for every
            length-one axis.

    Returns:
        A Variable without those axes.

    Raises:
        TypeError: If ``axis`` has another type.
        ValueError: If a named axis is longer than one.
        chainer_compat.utils.type_check.InvalidType: If an axis is out of range.
    """
    y, = Squeeze(axis).apply((x,))
    return y
