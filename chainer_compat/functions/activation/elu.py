"""``elu``: the exponential linear unit, ``x`` for positive inputs, ``alpha * (e**x - 1)`` else.

Layer 5: imports backend, utils and function_node.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation, in_c_order


class ELU(FloatActivation):
    """Exponential linear unit with parameter ``alpha``."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = float(alpha)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        # The gradient is written in terms of the output; with a negative alpha the output's
        # sign no longer tells the two branches apart, so the input is kept as well.
        if self.alpha < 0:
            self.retain_inputs((0,))
        self.retain_outputs((0,))
        if xp is numpy:
            # compat: Chainer's CPU code takes expm1 of the non-positive entries only, so a
            # large positive x raises no overflow (a warning, or an error under errstate).
            y = x.copy()
            negative = y <= 0
            y[negative] = numpy.expm1(y[negative]) * x.dtype.type(self.alpha)
            return y,
        negative = xp.expm1(x) * x.dtype.type(self.alpha)
        return in_c_order(utils.force_array(xp.where(x > 0, x, negative), x.dtype)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        if self.alpha < 0:
            condition = self.get_retained_inputs()[0].array
        else:
            condition = y.array
        slope, = ELUGrad(self.alpha, condition).apply((y,))
        return slope * grad_outputs[0],


class ELUGrad(FunctionNode):
    """The derivative of ELU from its output: 1 on the linear branch, ``y + alpha`` else."""

    def __init__(self, alpha: float, cond: Any) -> None:
        self.alpha = alpha
        self.condition = cond

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, = inputs
        xp = backend.get_array_module(y)
        one = y.dtype.type(1)
        slope = xp.where(self.condition > 0, one, y + y.dtype.type(self.alpha))
        return utils.force_array(slope, y.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # d(y + alpha)/dy is 1 on the exponential branch and the constant 1 has none.
        return grad_outputs[0] * (self.condition <= 0),


def elu(x: Any, alpha: float = 1.0) -> variable.Variable:
    """Exponential linear unit: ``x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``.

    Args:
        x: Input Variable or array of floats.
        alpha: The parameter ``alpha``.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = ELU(alpha=alpha).apply((x,))
    return y
