"""``moveaxis``: moves axes to new positions, keeping the order of the others.

Layer 5: imports variable, function_node, utils.type_check and the ``transpose`` function.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import axis_range_message, check_axis, is_int
from chainer_compat.utils import type_check


def _as_axes(value: Any, name: str) -> tuple[int, ...]:
    if is_int(value):
        return (int(value),)
    # compat: any sequence of ints numpy.moveaxis takes, a range or a 1-d array too (Chainer
    # hands them to it; einconv passes range(n)).
    if isinstance(value, (tuple, list, range)) or (
            isinstance(value, numpy.ndarray) and value.ndim == 1):
        if all(is_int(a) for a in value):
            return tuple(int(a) for a in value)
    raise TypeError(f"{name} must be int or tuple of int, got {value!r}")


def _normalized(axes: tuple[int, ...], ndim: int, name: str) -> list[int]:
    """Returns ``axes`` counted from 0, raising what Chainer's ``numpy.moveaxis`` raises.

    The range check matters only with type checks off (then the modulo would silently pick
    another axis); the repeat check always runs here, as in Chainer.
    """
    for axis in axes:
        if not -ndim <= axis < ndim:
            raise numpy.exceptions.AxisError(
                axis, ndim, axis_range_message(axis, ndim, name) + f"; pass axes of x; {name}")
    normalized = [axis % ndim for axis in axes]
    if len(set(normalized)) != len(normalized):
        raise ValueError(
            f"{name} must not repeat an axis, got {axes}: repeated axis in `{name}` argument; "
            "name each axis once")
    return normalized


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
                f"{self.source} and {self.destination}: `source` and `destination` arguments "
                "must have the same number of elements; pair each source with a destination")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        for axis in self.source + self.destination:
            check_axis(in_types[0], axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        source = _normalized(self.source, x.ndim, "source")
        destination = _normalized(self.destination, x.ndim, "destination")
        order = [axis for axis in range(x.ndim) if axis not in source]
        for target, axis in sorted(zip(destination, source)):
            order.insert(target, axis)
        self._axes = tuple(order)
        return x.transpose(self._axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # The inverse move, a Moveaxis node as in Chainer.
        return Moveaxis(self.destination, self.source).apply(grad_outputs)


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
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not float (as in Chainer) or an
            axis is out of range.
    """
    y, = Moveaxis(source, destination).apply((x,))
    return y
