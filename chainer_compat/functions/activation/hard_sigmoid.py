"""``hard_sigmoid``: the piecewise-linear sigmoid ``clip(0.2 * x + 0.5, 0, 1)``.

Layer 5: imports backend, utils and function_node.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation
from chainer_compat.utils._numpy_scalars import is_numpy1_scalar


def _constant_type(array: Any) -> Any:
    """The type Chainer's Python constants took against ``array`` on NumPy 1: its own dtype,
    but float64 against a 0-d float16/float32 NumPy array, which NumPy 1 took for a scalar
    (NOTE [0-d arrays in updates] in utils/_numpy_scalars.py)."""
    return numpy.float64 if is_numpy1_scalar(array) else array.dtype.type


class HardSigmoid(FloatActivation):
    """Hard sigmoid: 0 below -2.5, 1 above 2.5, linear in between."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        dtype = _constant_type(x)
        y = xp.clip(x * dtype(0.2) + dtype(0.5), dtype(0), dtype(1))
        return utils.force_array(y, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return HardSigmoidGrad(x.array).apply(grad_outputs)


class HardSigmoidGrad(FunctionNode):
    """Gradient of HardSigmoid: ``0.2 * gy`` on the linear part; its backward is itself."""

    def __init__(self, x: Any) -> None:
        self.x = x

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        x = self.x
        gx = gy * ((-2.5 < x) & (x < 2.5)) * _constant_type(gy)(0.2)
        return utils.force_array(gx, gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return HardSigmoidGrad(self.x).apply(grad_outputs)


def hard_sigmoid(x: Any) -> variable.Variable:
    """Elementwise hard sigmoid: 0 if ``x < -2.5``, 1 if ``x > 2.5``, else ``0.2 * x + 0.5``.

    Args:
        x: Input Variable or array of floats.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = HardSigmoid().apply((x,))
    return y
