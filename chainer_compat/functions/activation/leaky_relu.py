"""``leaky_relu``: ``x`` where ``x > 0``, ``slope * x`` elsewhere.

Layer 5: imports utils and function_node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation, in_c_order
from chainer_compat.utils import _select


def _leaky(condition: Any, value: Any, slope: float) -> Any:
    """``value`` where ``condition > 0``, ``slope * value`` elsewhere, in ``value``'s dtype."""
    scaled = value * value.dtype.type(slope)
    # compat: Chainer puts 0 on the slope side, so the gradient at x == 0 is slope * gy.
    return in_c_order(utils.force_array(_select.where(condition > 0, value, scaled),
                                         value.dtype))


class LeakyReLU(FloatActivation):
    """Leaky rectified linear unit with a fixed ``slope``."""

    def __init__(self, slope: float = 0.2) -> None:
        self.slope = slope

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        # With a positive slope the output has the input's sign, so the output decides the
        # branch; a zero or negative slope keeps the input instead.
        if self.slope > 0:
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return _leaky(x, x, self.slope),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        if self.slope > 0:
            condition = self.get_retained_outputs()[0].array
        else:
            condition = self.get_retained_inputs()[0].array
        return _LeakyReLUGrad(condition, self.slope).apply(grad_outputs)


class _LeakyReLUGrad(FunctionNode):
    """Gradient of LeakyReLU: linear in ``gy``, so its own backward is itself."""

    def __init__(self, condition: Any, slope: float) -> None:
        self.condition = condition
        self.slope = slope

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _leaky(self.condition, gy, self.slope),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return _LeakyReLUGrad(self.condition, self.slope).apply(grad_outputs)


def leaky_relu(x: Any, slope: float = 0.2) -> variable.Variable:
    """Leaky rectified linear unit: ``x`` if ``x > 0`` else ``slope * x``.

    Args:
        x: Input Variable or array of floats.
        slope: The slope for negative inputs.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = LeakyReLU(slope).apply((x,))
    return y
