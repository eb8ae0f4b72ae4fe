"""``sinh`` and ``cosh``: differentiable hyperbolic functions.

Layer 5: imports the core and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary


class Sinh(FloatUnary):
    """Elementwise hyperbolic sine."""

    _label = "sinh"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).sinh(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return cosh(x) * grad_outputs[0],  # compat: Chainer's operand order, which hooks see


class Cosh(FloatUnary):
    """Elementwise hyperbolic cosine."""

    _label = "cosh"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).cosh(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return sinh(x) * grad_outputs[0],  # compat: Chainer's operand order, which hooks see


def sinh(x: Any) -> variable.Variable:
    """Elementwise hyperbolic sine.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Sinh().apply((x,))
    return y


def cosh(x: Any) -> variable.Variable:
    """Elementwise hyperbolic cosine.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Cosh().apply((x,))
    return y
