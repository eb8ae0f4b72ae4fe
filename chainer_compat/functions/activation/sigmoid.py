"""``sigmoid``: the logistic function ``1 / (1 + e**-x)``.

Layer 5: imports backend, utils and function_node.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation

_ndarray = numpy.ndarray


def _logistic(x: Any) -> Any:
    """The logistic function through tanh, which never overflows."""
    half = x.dtype.type(0.5)
    xp = numpy if type(x) is _ndarray else backend.get_array_module(x)
    return utils.force_array(xp.tanh(x * half) * half + half, x.dtype)


class Sigmoid(FloatActivation):
    """Logistic sigmoid; keeps only its output for backward."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return _logistic(inputs[0]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return SigmoidGrad().apply((y, grad_outputs[0]))


class SigmoidGrad(FunctionNode):
    """Gradient of Sigmoid from its output: ``gy * y * (1 - y)``.

    Args:
        inputs: Chainer's constructor argument, the tuple ``(x,)`` of the forward's input,
            which Chainer keeps for cuDNN only. Accepted and kept as ``x`` so that code
            building the node as Chainer does runs; the gradient does not read it.
    """

    def __init__(self, inputs: tuple[Any, ...] | None = None) -> None:
        self.x = None if inputs is None else inputs[0]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        one = y.dtype.type(1)
        return utils.force_array(gy * y * (one - y), gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        grads: list[Any] = []
        for index in indexes:
            if index == 0:
                grads.append(ggx * gy * (1 - 2 * y))
            else:
                grads.append(ggx * y * (1 - y))
        return tuple(grads)


def sigmoid(x: Any) -> variable.Variable:
    """Elementwise logistic sigmoid, ``1 / (1 + exp(-x))``.

    Args:
        x: Input Variable or array of floats.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = Sigmoid().apply((x,))
    return y
