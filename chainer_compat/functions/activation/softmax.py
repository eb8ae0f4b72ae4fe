"""``softmax``: normalized exponentials along an axis.

Layer 5: imports backend, utils, function_node and the ``sum``/``broadcast_to`` functions.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import check_axis
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order

_ndarray = numpy.ndarray


def _axis_sum(x: variable.Variable, axis: int) -> variable.Variable:
    """Differentiable sum over ``axis``, broadcast back to ``x``'s shape."""
    return broadcast_to(_sum(x, axis=axis, keepdims=True), x.shape)


class Softmax(FunctionNode):
    """Softmax along ``axis``; keeps only its output for backward."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axis(in_types[0], self.axis)

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # Softmax sits at the end of most classifiers: check a float input without expressions.
        if len(in_data) == 1:
            x = in_data[0]
            if x.dtype.kind == "f" and -x.ndim <= self.axis < x.ndim:
                return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = numpy if type(x) is _ndarray else backend.get_array_module(x)
        y = x - x.max(axis=self.axis, keepdims=True)
        xp.exp(y, out=y)
        y /= sum_in_numpy1_order(y, self.axis, keepdims=True)  # NOTE [NumPy 1 sum order]
        self.retain_outputs((0,))
        return utils.force_array(y),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return _SoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class _SoftmaxGrad(FunctionNode):
    """Gradient of Softmax from its output: ``y * gy - y * sum(y * gy)``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        gx = y * gy
        gx -= y * sum_in_numpy1_order(gx, self.axis, keepdims=True)
        return utils.force_array(gx),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        # Chainer's expressions in Chainer's order, so the second-order gradients round alike:
        # with S the broadcast sum over the axis, ga = ggx - S(ggx * y) is shared, the gradient
        # for y is ga * gy - ggx * S(y * gy) and the one for gy is ga * y.
        shifted = ggx - broadcast_to(_sum(ggx * y, axis=self.axis, keepdims=True), gy.shape)
        grads: list[Any] = []
        if 0 in indexes:
            # S(y * gy) before either product: hooks see Chainer's node order.
            y_gy_sum = _axis_sum(y * gy, self.axis)
            grads.append(shifted * gy - ggx * y_gy_sum)
        if 1 in indexes:
            grads.append(shifted * y)
        return tuple(grads)


def softmax(x: Any, axis: int = 1) -> variable.Variable:
    """Softmax along ``axis``: ``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        x: Input Variable or array of floats.
        axis: The axis to normalize along.

    Returns:
        A Variable of ``x``'s shape and dtype whose entries along ``axis`` sum to one.
    """
    y, = Softmax(axis=axis).apply((x,))
    return y
