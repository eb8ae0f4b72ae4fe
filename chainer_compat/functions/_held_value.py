"""``HeldValue``: a differentiable stand-in for a Variable that has another value (private).

Layer 5: imports function_node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.function_node import FunctionNode

__all__ = ["HeldValue"]


class HeldValue(FunctionNode):
    """Outputs the array it holds, and passes its input's gradient back unchanged.

    Applied to a Variable, it gives a Variable with the held value whose gradient still reaches
    the input: an old-style function's gradient with the value of Chainer's arithmetic (NOTE
    [old-style gradients]), or a saved array's preserved copy (allow-mutation mode).

    Args:
        value: The array the output holds.
        label: What hooks and graphs show for the node.
    """

    def __init__(self, value: Any, label: str) -> None:
        self._value = value
        self._label = label

    @property
    def label(self) -> str:
        return self._label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._value,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return grad_outputs
