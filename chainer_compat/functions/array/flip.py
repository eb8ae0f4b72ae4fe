"""``flip``: reverses the order of elements along an axis.

Layer 5: imports backend, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import check_axis, require_int
from chainer_compat.utils import type_check


class Flip(FunctionNode):
    """Reverses its input along ``axis``; the backward reverses the gradient the same way.

    Raises:
        TypeError: If ``axis`` is not an int.
    """

    def __init__(self, axis: int) -> None:
        self.axis = require_int(axis, "axis")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].ndim >= 1)
        check_axis(in_types[0], self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return backend.get_array_module(x).flip(x, self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return Flip(self.axis).apply(grad_outputs)


def flip(x: Any, axis: int) -> variable.Variable:
    """Reverses the order of the elements of ``x`` along ``axis``.

    Args:
        x: Input Variable or array of at least one dimension.
        axis: The axis to reverse.

    Returns:
        A Variable holding a reversed view of ``x``'s array.

    Raises:
        TypeError: If ``axis`` is not an int.
        chainer_compat.utils.type_check.InvalidType: If ``axis`` is out of range.
    """
    y, = Flip(axis).apply((x,))
    return y
