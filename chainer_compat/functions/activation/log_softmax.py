"""``log_softmax``: the logarithm of softmax along an axis, computed without underflow.

Layer 5: imports backend, utils, function_node and the ``sum``/``broadcast_to``/``exp`` functions.
Also holds the array helpers ``logsumexp`` and ``_log_softmax`` that the losses use.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import check_axis
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.math.exponential import exp
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order

_ndarray = numpy.ndarray


def logsumexp(x: Any, axis: int) -> Any:
    """Returns ``log(sum(exp(x), axis, keepdims=True))`` of an array, without overflow."""
    xp = numpy if type(x) is _ndarray else backend.get_array_module(x)
    peak = x.max(axis=axis, keepdims=True)
    shifted = x - peak
    xp.exp(shifted, out=shifted)
    total = sum_in_numpy1_order(shifted, axis, keepdims=True)  # NOTE [NumPy 1 sum order]
    xp.log(total, out=total)
    peak += total
    return peak


def _log_softmax(x: Any, axis: int = 1) -> Any:
    """Returns the log-softmax of an array along ``axis`` (no graph)."""
    return x - logsumexp(x, axis)


class LogSoftmax(FunctionNode):
    """Log-softmax along ``axis``; keeps only its output for backward."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axis(in_types[0], self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(_log_softmax(x, self.axis)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return LogSoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class LogSoftmaxGrad(FunctionNode):
    """Gradient of LogSoftmax from its output: ``gy - exp(y) * sum(gy)``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = backend.get_array_module(y)
        gx = gy - xp.exp(y) * sum_in_numpy1_order(gy, self.axis, keepdims=True)
        return utils.force_array(gx),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        softmax = exp(y)
        grads: list[Any] = []
        for index in indexes:
            if index == 0:
                total = broadcast_to(_sum(gy, axis=self.axis, keepdims=True), y.shape)
                grads.append(-ggx * softmax * total)
            else:
                weighted = _sum(ggx * softmax, axis=self.axis, keepdims=True)
                grads.append(ggx - broadcast_to(weighted, y.shape))
        return tuple(grads)


def log_softmax(x: Any, axis: int = 1) -> variable.Variable:
    """Log-softmax along ``axis``: ``x - log(sum(exp(x), axis))``.

    More stable than ``log(softmax(x))``, which underflows for very negative inputs.

    Args:
        x: Input Variable or array of floats.
        axis: The axis to normalize along.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = LogSoftmax(axis=axis).apply((x,))
    return y
