"""``stack``: joins same-shaped arrays along a new axis.

Layer 5: imports backend, variable, function_node and utils.type_check; ``separate`` (which
imports this module) is imported where backward runs.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import require_int
from chainer_compat.utils import type_check


class Stack(FunctionNode):
    """Stacks its inputs along a new axis ``axis``."""

    def __init__(self, axis: int) -> None:
        self.axis = require_int(axis, "axis")

    def check_type_forward(self, in_types: Any) -> None:
        # compat: Chainer's checks in Chainer's order, the inputs unnamed, so the messages
        # read as there ('in_types[1].shape == in_types[0].shape').
        type_check.expect(in_types.size() > 0)
        type_check.expect(-in_types[0].ndim - 1 <= self.axis, self.axis <= in_types[0].ndim)
        for i in range(1, type_check.eval(in_types.size())):
            type_check.expect(
                in_types[i].dtype == in_types[0].dtype,
                in_types[i].shape == in_types[0].shape,
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        return xp.stack(inputs, axis=self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.array.separate import separate  # imports this module

        return separate(grad_outputs[0], self.axis)


def stack(xs: Any, axis: int = 0) -> variable.Variable:
    """Stacks Variables or arrays of one shape and dtype along a new axis.

    Args:
        xs: A sequence of Variables or arrays.
        axis: Position of the new axis in the output (negative counts from the end).

    Returns:
        A Variable with one more axis than the inputs, of length ``len(xs)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If there is no input, the shapes or
            dtypes differ, or ``axis`` is out of range.
    """
    y, = Stack(axis).apply(tuple(xs))
    return y
