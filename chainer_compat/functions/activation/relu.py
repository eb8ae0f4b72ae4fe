"""``relu``: the rectified linear unit, ``max(0, x)``.

Layer 5: imports backend, utils, variable, function_node and (for NOTE [gradients without a
node]) ``functions.connection.linear``.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation
from chainer_compat.functions.connection.linear import _may_skip_gradient_nodes
from chainer_compat.variable import _new_unlinked_variable

_ndarray = numpy.ndarray


class ReLU(FloatActivation):
    """Rectified linear unit; keeps only its output for backward."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        if type(x) is _ndarray:
            if x.flags.c_contiguous:
                # NumPy's maximum with a scalar operand runs a loop several times slower than
                # with an array operand: max against zeros written in place gives the same
                # bits (tests pin NaN and signed zeros) in less than half the time.
                y = numpy.zeros(x.shape, x.dtype)
                numpy.maximum(x, y, out=y)
                return y,
            y = numpy.maximum(x, 0)
            if type(y) is _ndarray:
                return y,
            return numpy.asarray(y),
        return utils.force_array(backend.get_array_module(x).maximum(x, 0)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        gy = grad_outputs[0]
        if y is not None and _may_skip_gradient_nodes(gy):
            # What ReLUGrad2 would output: NOTE [gradients without a node].
            return _new_unlinked_variable(_relu_grad(y._array, gy._array),
                                          gy._node._requires_grad),
        return ReLUGrad2(y.array).apply((gy,))


def _relu_grad(y: Any, gy: Any) -> Any:
    """``gy * (y > 0)``: ``gy`` where ``y > 0``, else ``gy * 0``, in ``gy``'s dtype."""
    if type(gy) is _ndarray and y.strides == gy.strides:
        # On NumPy, the mask cast first and multiplied in place (multiplication commutes
        # exactly) avoids the slower mixed bool-float multiply loop. With y and gy laid out
        # alike, NumPy lays out Chainer's gy * (y > 0) so too, and so is the mask; otherwise
        # (gy from a convolution, say) Chainer's expression itself, below, gives its layout.
        # A later reduction over the gradient (batch normalization's, a convolution's) then
        # adds in Chainer's order (NOTE [Chainer's rounding] in
        # functions/loss/softmax_cross_entropy.py).
        mask = numpy.empty_like(gy)
        numpy.copyto(mask, y > 0)
        mask *= gy
        return utils.force_array(mask, gy.dtype)
    if backend.is_cupy_array(gy) and y.dtype == gy.dtype:
        # One launch instead of a comparison and a mixed multiply (about 50 us for both on an
        # H200's host); the same multiply by the mask cast to gy's dtype, so the same bits.
        # compat: Chainer's CUDA kernel selects (+0 where y <= 0, even for a NaN, inf or
        # negative gy) while its CPU path multiplies; we multiply on both, so the devices agree.
        return _cupy_relu_grad()(y, gy)
    return utils.force_array(gy * (y > 0), gy.dtype)


@functools.cache
def _cupy_relu_grad() -> Any:
    cupy = sys.modules["cupy"]  # reached with CuPy arrays only
    return cupy.ElementwiseKernel(
        "T y, T gy", "T gx", "gx = gy * T(y > T(0.0f) ? 1.0f : 0.0f)",
        "chainer_compat_relu_grad")


class ReLUGrad2(FunctionNode):
    """Gradient of ReLU from its output: ``gy`` where ``b > 0``, else zero.

    Args:
        b: The ReLU's output array, kept by the node (compat: Chainer's constructor; the node
            has one input, ``gy``, as hooks see on Chainer).
    """

    def __init__(self, b: Any) -> None:
        self.b = b

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _relu_grad(self.b, inputs[0]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # The mask is piecewise constant in b: the gradient of gy is the masked one.
        return ReLUGrad2(self.b).apply(grad_outputs)


def relu(x: Any) -> variable.Variable:
    """Rectified linear unit: ``max(0, x)`` elementwise.

    Args:
        x: Input Variable or array of floats.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array.
    """
    y, = ReLU().apply((x,))
    return y
