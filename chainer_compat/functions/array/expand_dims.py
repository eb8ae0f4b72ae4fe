"""``expand_dims``: inserts an axis of length one.

Layer 5: imports backend, variable, function_node and the ``reshape`` function.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import check_insert_axis, require_int
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.utils import type_check


class ExpandDims(FunctionNode):
    """Inserts a length-one axis at ``axis``; backward reshapes the gradient back.

    Raises:
        TypeError: If ``axis`` is not an int.
    """

    def __init__(self, axis: int) -> None:
        self.axis = require_int(axis, "axis")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        check_insert_axis(in_types[0], self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return backend.get_array_module(x).expand_dims(x, self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return reshape(grad_outputs[0], self._in_shape),


def expand_dims(x: Any, axis: int) -> variable.Variable:
    """Inserts an axis of length one into ``x`` at position ``axis``.

    Args:
        x: Input Variable or array.
        axis: Position of the new axis in the output; ``-1`` appends it.

    Returns:
        A Variable with one more axis than ``x``.

    Raises:
        TypeError: If ``axis`` is not an int.
        chainer_compat.utils.type_check.InvalidType: If ``axis`` is out of range.
    """
    y, = ExpandDims(axis).apply((x,))
    return y
