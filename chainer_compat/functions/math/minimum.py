"""``minimum``: the differentiable elementwise minimum of two inputs, with broadcasting.

Layer 5: imports the core and maximum's gradient router.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.maximum import _route_gradient
from chainer_compat.utils import type_check


class Minimum(FunctionNode):
    """Elementwise minimum; on ties the gradient goes to ``x1``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x1", "x2"))
        type_check.expect(in_types[0].dtype.kind == "f",
                          in_types[0].dtype == in_types[1].dtype)
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1, x2)
        return utils.force_array(xp.minimum(x1, x2)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        return _route_gradient(grad_outputs[0], x1, x2, x1.array <= x2.array, indexes)


def minimum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise minimum of two inputs.

    Args:
        x1: First input (float Variable or array).
        x2: Second input, of the same dtype and broadcastable with ``x1``.

    Returns:
        The output Variable.
    """
    y, = Minimum().apply((x1, x2))
    return y
