"""``expm1``: the differentiable ``exp(x) - 1``, accurate for small ``x``.

Layer 5: imports the core and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary


class Expm1(FloatUnary):
    """Elementwise ``exp(x) - 1``; backward reuses the output."""

    _label = "expm1"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(backend.get_array_module(x).expm1(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return (y + 1.0) * grad_outputs[0],  # compat: Chainer's operand order, which hooks see


def expm1(x: Any) -> variable.Variable:
    """Elementwise ``exp(x) - 1``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Expm1().apply((x,))
    return y
