"""``reshape``: a differentiable change of shape."""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _count_unknown(shape: tuple[int, ...]) -> int:
    return sum(1 for dim in shape if dim < 0)


class Reshape(FunctionNode):
    """Reshapes its input; backward reshapes the gradient back."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)
        if _count_unknown(self.shape) > 1:
            raise ValueError(f"reshape shape must have at most one -1, got {self.shape}")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        known = type_check.prod([d for d in self.shape if d >= 0]) if self.shape else 1
        if _count_unknown(self.shape) == 0:
            type_check.expect(type_check.prod(in_types[0].shape) == known)
        else:
            type_check.expect(type_check.prod(in_types[0].shape) % known == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return x.reshape(self.shape),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        return reshape(gy, self._in_shape),


def reshape(x: Any, shape: Any) -> variable.Variable:
    """Returns ``x`` reshaped to ``shape`` (one entry may be -1).

    Args:
        x: Input Variable or array.
        shape: The new shape.
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    y, = Reshape(shape).apply((x,))
    return y
