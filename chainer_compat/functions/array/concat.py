"""``concat``: joins arrays along an existing axis.

Layer 5: imports backend, variable, function_node and utils.type_check; ``split_axis`` (which
imports this module) is imported where backward runs.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import is_int
from chainer_compat.utils import type_check


class Concat(FunctionNode):
    """Concatenates its inputs along ``axis``.

    Raises:
        TypeError: If ``axis`` is not an int.
    """

    def __init__(self, axis: int = 1) -> None:
        if not is_int(axis):
            raise TypeError(f"axis must be int, got {type(axis).__name__}")
        self.axis = int(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check.expect(in_types[0].ndim > type_check.make_variable(self.axis, "axis"))
        type_check.expect(-in_types[0].ndim <= self.axis)
        ndim = type_check.eval(in_types[0].ndim)
        axis = self.axis % ndim
        for i in range(1, type_check.eval(in_types.size())):
            type_check.expect(
                in_types[0].dtype == in_types[i].dtype,
                in_types[0].ndim == in_types[i].ndim,
            )
            for d in range(ndim):
                if d != axis:
                    type_check.expect(in_types[0].shape[d] == in_types[i].shape[d])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        # Concatenate first: with type checks off, an axis out of range then raises NumPy's
        # AxisError, as in Chainer, rather than an IndexError from reading the shapes.
        y = xp.concatenate(inputs, axis=self.axis)
        self._sizes = [x.shape[self.axis] for x in inputs]
        return y,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.array.split_axis import split_axis  # imports this module

        if len(self._sizes) == 1:
            return grad_outputs
        offsets = []
        total = 0
        for size in self._sizes[:-1]:
            total += size
            offsets.append(total)
        return split_axis(grad_outputs[0], offsets, self.axis)


def concat(xs: Any, axis: int = 1) -> variable.Variable:
    """Concatenates Variables or arrays along an axis.

    Args:
        xs: A sequence of Variables or arrays of one dtype, with equal shapes except along
            ``axis``.
        axis: The axis to join along.

    Returns:
        The concatenated Variable.

    Raises:
        TypeError: If ``axis`` is not an int.
        chainer_compat.utils.type_check.InvalidType: If there is no input, or dtypes, ranks
            or shapes disagree.
    """
    y, = Concat(axis).apply(tuple(xs))
    return y
