"""``log1p``: the differentiable ``log(1 + x)``, accurate for small ``x``.

Layer 5: imports the core and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary


class Log1p(FloatUnary):
    """Elementwise ``log(1 + x)``."""

    _label = "log1p"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).log1p(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x + 1.0),


def log1p(x: Any) -> variable.Variable:
    """Elementwise natural logarithm of ``1 + x``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Log1p().apply((x,))
    return y
