"""``separate``: splits an array into its slices along an axis, removing that axis.

Layer 5: imports backend, function_node, utils.type_check and the ``stack`` function.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import check_axis, require_int
from chainer_compat.functions.array.stack import stack
from chainer_compat.utils import type_check


class Separate(FunctionNode):
    """Returns the slices of its input along ``axis``, one output each."""

    def __init__(self, axis: int) -> None:
        self.axis = require_int(axis, "axis")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        check_axis(in_types[0], self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        self._piece_shape = x.shape[:self.axis % x.ndim] + x.shape[self.axis % x.ndim + 1:]
        # Views without copying; the Ellipsis keeps a 0-D slice an array, not a scalar.
        moved = xp.moveaxis(x, self.axis, 0)
        return tuple(moved[i, ...] for i in range(moved.shape[0]))

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # Slices that got no gradient contribute zeros to the stacked gradient.
        known = next(grad for grad in grad_outputs if grad is not None)
        xp = backend.get_array_module(known.array)
        pieces = [xp.zeros(self._piece_shape, known.dtype) if grad is None else grad
                  for grad in grad_outputs]
        return stack(pieces, self.axis),


def separate(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """Splits ``x`` into its slices along ``axis``.

    Args:
        x: Input Variable or array.
        axis: The axis to separate along; it is removed from each result.

    Returns:
        A tuple of ``x.shape[axis]`` Variables (always a tuple, even for one slice).

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``axis`` is out of range.
    """
    return Separate(axis).apply((x,))
