"""``transpose``: a differentiable permutation of axes.

Layer 5: imports variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Transpose(FunctionNode):
    """Permutes the axes of its input (reverses them when ``axes`` is None)."""

    def __init__(self, axes: Any = None) -> None:
        self.axes = None if axes is None else tuple(int(axis) for axis in axes)

    @property
    def label(self) -> str:
        return "Transpose"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axes is not None:
            type_check.expect(in_types[0].ndim == len(self.axes))
            ndim = type_check.eval(in_types[0].ndim)
            normalized = sorted(axis % ndim if -ndim <= axis < ndim else axis
                                for axis in self.axes)
            if normalized != list(range(ndim)):
                raise type_check.InvalidType(
                    f"axes is a permutation of range(x.ndim) = range({ndim})",
                    f"axes = {self.axes}")

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # Transpose runs on every Variable.T: skip the expressions when nothing can be wrong.
        if len(in_data) == 1 and self.axes is None:
            return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x.transpose(self.axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        if self.axes is None:
            return Transpose(None).apply(grad_outputs)
        count = len(self.axes)
        inverse = [0] * count
        for position, axis in enumerate(self.axes):
            inverse[axis % count] = position
        return Transpose(inverse).apply(grad_outputs)


def transpose(x: Any, axes: Any = None) -> variable.Variable:
    """Permutes the axes of ``x``.

    Args:
        x: Input Variable or array.
        axes: A permutation of ``range(x.ndim)`` (negative entries count from the end), or
            None to reverse the axes.

    Returns:
        A Variable holding a transposed view of ``x``'s array.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``axes`` is not a permutation of
            the axes of ``x``.
    """
    y, = Transpose(axes).apply((x,))
    return y
