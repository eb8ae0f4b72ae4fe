"""``transpose``: a differentiable permutation of axes."""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Transpose(FunctionNode):
    """Permutes the axes of its input (all reversed when ``axes`` is None)."""

    def __init__(self, axes: Any = None) -> None:
        self.axes = None if axes is None else tuple(axes)

    @property
    def label(self) -> str:
        return "Transpose"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axes is not None:
            type_check.expect(in_types[0].ndim == len(self.axes))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x.transpose(self.axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        if self.axes is None:
            return transpose(gy, None),
        inverse = tuple(numpy.argsort([a % len(self.axes) for a in self.axes]))
        return transpose(gy, inverse),


def transpose(x: Any, axes: Any = None) -> variable.Variable:
    """Returns ``x`` with its axes permuted (reversed when ``axes`` is None)."""
    y, = Transpose(axes).apply((x,))
    return y
