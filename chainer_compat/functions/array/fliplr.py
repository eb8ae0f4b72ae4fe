"""``fliplr``: reverses the order of elements along axis 1 (left/right).

Layer 5: imports backend, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class FlipLR(FunctionNode):
    """Reverses its input along axis 1."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        return backend.get_array_module(a).fliplr(a),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return FlipLR().apply(grad_outputs)


def fliplr(a: Any) -> variable.Variable:
    """Reverses the columns of ``a`` (axis 1), like ``numpy.fliplr``.

    Args:
        a: Input Variable or array of at least two dimensions.

    Returns:
        A Variable holding a reversed view of ``a``'s array.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``a`` is not float (as in Chainer) or
            has fewer than two dimensions.
    """
    y, = FlipLR().apply((a,))
    return y
