"""``swapaxes``: exchanges two axes.

Layer 5: imports variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import require_int
from chainer_compat.utils import type_check


class Swapaxes(FunctionNode):
    """Swaps ``axis1`` and ``axis2``; backward swaps them again."""

    def __init__(self, axis1: int, axis2: int) -> None:
        self.axis1 = require_int(axis1, "axis1")
        self.axis2 = require_int(axis2, "axis2")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        ndim = type_check.eval(in_types[0].ndim)
        # compat: Chainer leaves the axes to NumPy, whose AxisError is a ValueError and an
        # IndexError; axis1 is checked first, as NumPy does.
        for name, axis in (("axis1", self.axis1), ("axis2", self.axis2)):
            if not -ndim <= axis < ndim:
                raise numpy.exceptions.AxisError(
                    axis, ndim,
                    f"{name} must be in [-{ndim}, {ndim}) to name an axis of the {ndim}-d x "
                    f"(-1 names its last), got {axis}; {name}")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x.swapaxes(self.axis1, self.axis2),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return Swapaxes(self.axis1, self.axis2).apply(grad_outputs)


def swapaxes(x: Any, axis1: int, axis2: int) -> variable.Variable:
    """Exchanges axes ``axis1`` and ``axis2`` of ``x``.

    Args:
        x: Input Variable or array.
        axis1: One axis.
        axis2: The other axis.

    Returns:
        A Variable holding a view of ``x``'s array with the two axes swapped.

    Raises:
        TypeError: If an axis is not an int.
        numpy.exceptions.AxisError: If an axis is out of range (a ValueError and an
            IndexError).
    """
    y, = Swapaxes(axis1, axis2).apply((x,))
    return y
