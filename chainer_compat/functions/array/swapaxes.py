"""``swapaxes``: exchanges two axes.

Layer 5: imports variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import check_axis, require_int
from chainer_compat.utils import type_check


class Swapaxes(FunctionNode):
    """Swaps ``axis1`` and ``axis2``; backward swaps them again."""

    def __init__(self, axis1: int, axis2: int) -> None:
        self.axis1 = require_int(axis1, "axis1")
        self.axis2 = require_int(axis2, "axis2")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        check_axis(in_types[0], self.axis1)
        check_axis(in_types[0], self.axis2)

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
        chainer_compat.utils.type_check.InvalidType: If an axis is out of range.
    """
    y, = Swapaxes(axis1, axis2).apply((x,))
    return y
