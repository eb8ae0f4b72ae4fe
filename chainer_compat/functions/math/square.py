"""``square``: the differentiable elementwise square.

Layer 5: imports the core and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary


class Square(FloatUnary):
    """Elementwise ``x ** 2``."""

    _label = "square"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(xp.square(x), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * 2.0 * x,


def square(x: Any) -> variable.Variable:
    """Elementwise square, ``y = x ** 2``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Square().apply((x,))
    return y
