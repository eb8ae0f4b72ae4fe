"""``maximum``: the differentiable elementwise maximum of two inputs, with broadcasting.

Layer 5: imports the core and sum_to.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check


class _ElementwisePick(FunctionNode):
    """Picks one of two broadcast inputs per element; ``Maximum`` and ``Minimum`` set the rule.

    A subclass sets ``_pick`` (the array-module function's name) and ``_first_wins`` (the
    comparison that holds where ``x1`` is picked, ties included, so ``x1`` gets the gradient).
    """

    _pick: str
    _first_wins: Callable[[Any, Any], Any]

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x1", "x2"))
        type_check.expect(in_types[0].dtype.kind == "f",
                          in_types[0].dtype == in_types[1].dtype)
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1, x2)
        return utils.force_array(getattr(xp, self._pick)(x1, x2)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        gy = grad_outputs[0]
        to_first = self._first_wins(x1.array, x2.array)
        grads = []
        if 0 in indexes:
            grads.append(sum_to(gy * to_first, x1.shape))
        if 1 in indexes:
            grads.append(sum_to(gy * ~to_first, x2.shape))
        return tuple(grads)


class Maximum(_ElementwisePick):
    """Elementwise maximum; on ties the gradient goes to ``x1``."""

    _pick = "maximum"
    _first_wins = staticmethod(operator.ge)


def maximum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise maximum of two inputs.

    Args:
        x1: First input (float Variable or array).
        x2: Second input, of the same dtype and broadcastable with ``x1``.

    Returns:
        The output Variable.
    """
    y, = Maximum().apply((x1, x2))
    return y
