"""``pad_sequence``: stacks arrays of different lengths into one, padding the short ones.

Layer 5: imports the core and ``get_item`` (its gradient).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.get_item import get_item
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.utils import type_check


class PadSequence(FunctionNode):
    """Stacks inputs of lengths ``<= length`` into ``(len(xs), length, ...)``, filling the
    tail of each row with ``padding``."""

    def __init__(self, length: int | None, padding: Any) -> None:
        self.length = length
        self.padding = padding

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        for i, in_type in enumerate(in_types):
            type_check._argname((in_type,), (f"x{i}",))
            type_check.expect(in_type.ndim > 0,
                              in_type.shape[1:] == in_types[0].shape[1:],
                              in_type.dtype == in_types[0].dtype)
        if self.length is not None:
            for in_type in in_types:
                type_check.expect(in_type.shape[0] <= self.length)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._lengths = [len(x) for x in inputs]
        length = max(self._lengths) if self.length is None else self.length
        y = xp.empty((len(inputs), length) + inputs[0].shape[1:], inputs[0].dtype)
        for row, x in zip(y, inputs):
            row[:len(x)] = x
            row[len(x):] = self.padding
        return y,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        # Each input's gradient is its own row, without the padding: as in Chainer, the rows
        # are split apart first and every input's is cut (an empty gy has nothing to split).
        count = len(self._lengths)
        rows = (gy,) * count if gy.size == 0 else split_axis(gy, count, 0, force_tuple=True)
        grads = [get_item(row, (0 if gy.size else i, slice(0, length)))
                 for i, (row, length) in enumerate(zip(rows, self._lengths))]
        return tuple(grads[index] for index in indexes)


def pad_sequence(xs: Any, length: int | None = None, padding: Any = 0) -> variable.Variable:
    """Stacks sequences of different lengths into one array, padding the shorter ones.

    Args:
        xs: A list of Variables or arrays; their first axes (the lengths) may differ, their
            other axes and dtypes must match.
        length: The length of the output's second axis; None uses the longest input.
        padding: The value that fills the positions past each input's end.

    Returns:
        A Variable of shape ``(len(xs), length) + xs[0].shape[1:]``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``xs`` is empty, the inputs disagree
            in their trailing shapes or dtypes, or one is longer than ``length``.
    """
    y, = PadSequence(length, padding).apply(tuple(xs))
    return y
