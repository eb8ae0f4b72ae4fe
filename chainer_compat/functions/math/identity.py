"""``identity``: passes its inputs through unchanged, as one node in the graph.

Layer 5: imports the core. Useful to give hooks and graph dumps a node to see.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.function_node import FunctionNode


class Identity(FunctionNode):
    """Returns its inputs as outputs; backward returns the output gradients."""

    def forward(self, xs: tuple[Any, ...]) -> tuple[Any, ...]:
        return xs

    def backward(self, indexes: tuple[int, ...], gys: Any) -> tuple[Any, ...]:
        return gys


def identity(*inputs: Any) -> Any:
    """Returns the inputs as new Variables sharing their arrays.

    Args:
        *inputs: Variables or arrays.

    Returns:
        One Variable for one input, else a tuple of Variables.
    """
    ret = Identity().apply(inputs)
    return ret[0] if len(ret) == 1 else ret
