"""``where``: picks from two arrays elementwise by a boolean condition.

Layer 5: imports backend, variable, function_node, utils.type_check and the ``sum_to``
function.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check


class Where(FunctionNode):
    """``condition ? x : y`` with broadcasting; ``condition`` is a constant boolean array."""

    def __init__(self, condition: Any) -> None:
        self.condition = condition

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "y"))
        x_type, y_type = in_types
        # compat: a scalar condition (True, numpy.bool_) is checked as a 0-d array, as Chainer
        # checks it, and broadcasts like one.
        condition = type_check._make_variable_from_array(
            utils.force_array(self.condition), "condition")
        type_check.expect(condition.dtype == numpy.bool_, x_type.dtype == y_type.dtype)
        type_check.expect_broadcast_shapes(condition.shape, x_type.shape, y_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, y = inputs
        self._shapes = (x.shape, y.shape)
        xp = backend.get_array_module(x, y)
        return xp.where(self.condition, x, y),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gz, = grad_outputs
        xp = backend.get_array_module(gz.array)
        zero = xp.zeros((), gz.dtype)
        grads: list[Any] = []
        for index in indexes:
            if index == 0:
                grad, = Where(self.condition).apply((gz, zero))
            else:
                grad, = Where(self.condition).apply((zero, gz))
            grads.append(sum_to(grad, self._shapes[index]))
        return tuple(grads)


def where(condition: Any, x: Any, y: Any) -> variable.Variable:
    """Chooses ``x`` where ``condition`` holds and ``y`` elsewhere, with broadcasting.

    Args:
        condition: Boolean Variable or array (not differentiated).
        x: Variable or array chosen where ``condition`` is True.
        y: Variable or array of ``x``'s dtype chosen elsewhere.

    Returns:
        A Variable of the broadcast shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``condition`` is not boolean, the
            dtypes of ``x`` and ``y`` differ, or the shapes do not broadcast.
    """
    if isinstance(condition, variable.Variable):
        condition = condition.array
    z, = Where(condition).apply((x, y))
    return z
