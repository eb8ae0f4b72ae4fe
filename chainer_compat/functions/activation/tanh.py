"""``tanh``: the elementwise hyperbolic tangent.

Layer 5: imports backend, utils and function_node.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation

_ndarray = numpy.ndarray


class Tanh(FloatActivation):
    """Hyperbolic tangent; keeps only its output for backward."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        xp = numpy if type(x) is _ndarray else backend.get_array_module(x)
        return utils.force_array(xp.tanh(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return TanhGrad().apply((y, grad_outputs[0]))


class TanhGrad(FunctionNode):
    """Gradient of Tanh from its output: ``gy * (1 - y * y)``.

    Args:
        x: Chainer's constructor argument, the forward's input, which Chainer keeps for cuDNN
            only. Accepted and kept so that code building the node as Chainer does runs; the
            gradient does not read it.
    """

    def __init__(self, x: Any = None) -> None:
        self.x = x

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        one = y.dtype.type(1)
        return utils.force_array(gy * (one - y * y), gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        # Chainer's order of operations (y * ggx shared by both), so the second-order gradients
        # round as Chainer's do; it forms both whichever are asked for, and so do we, so hooks
        # see the same nodes.
        y_times_ggx = y * ggx
        grad_y = -2 * gy * y_times_ggx
        grad_gy = ggx - y * y_times_ggx
        return grad_y, grad_gy


def tanh(x: Any) -> variable.Variable:
    """Elementwise hyperbolic tangent.

    Args:
        x: Input Variable or array of floats.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = Tanh().apply((x,))
    return y
