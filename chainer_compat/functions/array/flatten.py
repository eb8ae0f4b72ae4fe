"""``flatten``: reshapes an array to one dimension.

Layer 5: imports variable, function_node and the ``reshape`` function.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.utils import type_check


class Flatten(FunctionNode):
    """Flattens its input in C order; backward reshapes the gradient back.

    Not Chainer's: its :func:`flatten` applies ``Reshape``, as ours does.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return x.ravel(),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return reshape(grad_outputs[0], self._in_shape),


def flatten(x: Any) -> variable.Variable:
    """Flattens ``x`` into a 1-D Variable of ``x.size`` elements (C order).

    Args:
        x: Input Variable or array.

    Returns:
        A 1-D Variable.
    """
    # compat: a Reshape node (none for a 1-D x), as Chainer's flatten applies; the Flatten
    # node stays for code that uses it by name.
    return reshape(x, (x.size,))
