"""``softplus``: the smooth ReLU ``log(1 + e**(beta * x)) / beta``.

Layer 5: imports backend, utils, function_node and the ``exp`` function.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation
from chainer_compat.functions.array.where import where
from chainer_compat.functions.math.exponential import exp
from chainer_compat.utils import type_check


def _logistic(x: Any) -> Any:
    """The logistic function of an array through tanh, which never overflows."""
    xp = backend.get_array_module(x)
    half = x.dtype.type(0.5)
    return xp.tanh(x * half) * half + half


def _times_beta(x: Any, beta: float) -> Any:
    """``beta * x`` in ``x``'s dtype, or in float64 for a 0-d NumPy ``x``."""
    if x.ndim == 0 and type(x) is numpy.ndarray:
        # compat: NumPy 1, under Chainer, multiplies a 0-d array by a Python float in float64
        # (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
        return numpy.array(float(x) * beta)
    return x * x.dtype.type(beta)


def _sigmoid_as_chainer(x: Any, beta: float) -> Any:
    """``1 - 1 / (1 + exp(beta x))`` on NumPy, a new array laid out as ``x``.

    compat: Chainer's CPU formula, whose rounding gives 0 where beta x < -17 in float32 (NOTE
    [Chainer's rounding] in functions/loss/softmax_cross_entropy.py); exp's overflow to inf
    gives exactly 1.
    """
    sigmoid = _times_beta(x, beta)
    with numpy.errstate(over="ignore"):
        numpy.exp(sigmoid, out=sigmoid)
    sigmoid += 1
    numpy.reciprocal(sigmoid, out=sigmoid)
    return numpy.subtract(1, sigmoid, out=sigmoid)


# Below these beta x, (1 + exp(beta x)) ** 2 stays finite in the dtype: log(max) / 2 less a
# margin for the rounding of exp and the square.
_CURVATURE_OVERFLOW = {"e": 5.0, "f": 44.0, "d": 354.0}


class Softplus(FloatActivation):
    """Softplus with sharpness ``beta``."""

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = float(beta)
        self.beta_inv = float(1.0 / beta)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        scaled = _times_beta(x, self.beta)
        # max(t, 0) + log1p(exp(-|t|)) equals log(1 + exp(t)) and never overflows.
        y = (xp.maximum(scaled, 0) + xp.log1p(xp.exp(-xp.abs(scaled)))) * \
            scaled.dtype.type(self.beta_inv)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return SoftplusGrad(self.beta).apply((x, grad_outputs[0]))


class SoftplusGrad(FunctionNode):
    """Gradient of Softplus: ``gy * sigmoid(beta * x)``."""

    def __init__(self, inputs: Any) -> None:
        # compat: Chainer's constructor takes the tuple ``(beta,)``; a bare beta works too.
        self.beta = inputs[0] if isinstance(inputs, (tuple, list)) else inputs

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "gy"))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[1].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        if type(x) is not numpy.ndarray:  # on the device, the tanh form: exact in the tails
            return utils.force_array(gy * _logistic(x * x.dtype.type(self.beta)), gy.dtype),
        # compat: the product of a temporary, as Chainer's (...) * gy: NumPy picks its memory
        # order from both operands, or reuses the temporary's when it is large (NOTE [gradient
        # arrays of the operators] in functions/math/_basic_math_grads.py), and a later sum over
        # it (a convolution's bias gradient) follows that order.
        return utils.force_array(_sigmoid_as_chainer(x, self.beta) * gy, gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        beta = self.beta
        xp = backend.get_array_module(x.array)
        # The curvature sigmoid(t) (1 - sigmoid(t)) of t = beta x is e / (1 + e) ** 2. Chainer
        # forms it with e = exp(t) in the order below, so we do too and the second-order
        # gradients round alike; but (1 + e) ** 2 overflows once t passes about 44 (float32),
        # giving Chainer 0 or NaN, so the elements that large take e = exp(-|t|) (the
        # curvature is even in t), which never does; the others keep Chainer's exp(t).
        small = x.array * x.dtype.type(beta) < _CURVATURE_OVERFLOW.get(x.dtype.char, 0.0)
        t = beta * x
        e = exp(t) if xp.all(small) else exp(where(small, t, -abs(t)))
        grad_x = ggx * gy * beta * e / (1 + e) ** 2
        grad_gy = SoftplusGrad(beta).apply((x, ggx))[0]
        return grad_x, grad_gy


def softplus(x: Any, beta: float = 1.0) -> variable.Variable:
    """Elementwise softplus, ``log(1 + exp(beta * x)) / beta``.

    Args:
        x: Input Variable or array of floats.
        beta: Sharpness; larger values bring the curve closer to ReLU.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = Softplus(beta=beta).apply((x,))
    return y
