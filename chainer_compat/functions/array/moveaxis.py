"""``moveaxis``: moves axes to new positions, keeping the order of the others.

Layer 5: imports variable, function_node, utils.type_check and the ``transpose`` function.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import check_axis, is_int
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.utils import type_check


def _as_axes(value: Any, name: str) -> tuple[int, ...]:
    if is_int(value):
        return (int(value),)
    if isinstance(value, (tuple, list)) and all(is_int(a) for a in value):
        return tuple(int(a) for a in value)
    raise TypeError(f"{name} must be int or tuple of int, got {value!r}")


class Moveaxis(FunctionNode):
    """Moves the axes ``source`` to the positions ``destination``.

    Raises:
        TypeError: If ``source`` or ``destination`` is not an int or a tuple of ints.
        ValueError: If they differ in length or repeat an axis.
    """

    def __init__(self, source: Any, destination: Any) -> None:
        self.source = _as_axes(source, "source")
        self.destination = _as_axes(destination, "destination")
        if len(self.source) != len(self.destination):
            raise ValueError(
                f"source and destination must have the same number of axes, got "
                f"{self.source} and {self.destination}")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        for axis in self.source + self.destination:
            check_axis(in_types[0], axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        ndim = x.ndim
        source = [axis % ndim for axis in self.source]
        destination = [axis % ndim for axis in self.destination]
        if len(set(source)) != len(source) or len(set(destination)) != len(destination):
            raise ValueError(
                f"source and destination must not repeat an axis, got {self.source} and "
                f"{self.destination}")
        order = [axis for axis in range(ndim) if axis not in source]
        for target, axis in sorted(zip(destination, source)):
            order.insert(target, axis)
        self._axes = tuple(order)
        return x.transpose(self._axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        inverse = [0] * len(self._axes)
        for position, axis in enumerate(self._axes):
            inverse[axis] = position
        return transpose(grad_outputs[0], inverse),


def moveaxis(x: Any, source: Any, destination: Any) -> variable.Variable:
    """Moves axes of ``x`` to new positions, like ``numpy.moveaxis``.

    Args:
        x: Input Variable or array.
        source: An int or tuple of ints, the axes to move.
        destination: An int or tuple of ints, their positions in the output.

    Returns:
        A Variable holding a view of ``x``'s array with the axes reordered.

    Raises:
        TypeError: If ``source`` or ``destination`` is not an int or a tuple of ints.
        ValueError: If they differ in length or repeat an axis.
        chainer_compat.utils.type_check.InvalidType: If an axis is out of range.
    """
    y, = Moveaxis(source, destination).apply((x,))
    return y
