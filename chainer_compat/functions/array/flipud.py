"""``flipud``: reverses the order of elements along axis 0 (up/down).

Layer 5: imports backend, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class FlipUD(FunctionNode):
    """Reverses its input along axis 0."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim >= 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        return backend.get_array_module(a).flipud(a),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return FlipUD().apply(grad_outputs)


def flipud(a: Any) -> variable.Variable:
    """Reverses the rows of ``a`` (axis 0), like ``numpy.flipud``.

    Args:
        a: Input Variable or array of at least one dimension.

    Returns:
        A Variable holding a reversed view of ``a``'s array.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``a`` is not float (as in Chainer) or
            is 0-D.
    """
    y, = FlipUD().apply((a,))
    return y
