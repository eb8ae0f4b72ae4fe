"""Small functions of every kind shared by the autograd tests: ctx, new-style and old-style.

Each keeps an array for backward (its input or its output), so the saved-array checks apply.
"""

from __future__ import annotations

import numpy

from chainer_compat import FunctionNode
from chainer_compat.autograd import Function
from chainer_compat.function import Function as OldStyleFunction


class CtxExp(Function):
    @staticmethod
    def forward(ctx, x):
        y = numpy.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        y, = ctx.saved_tensors
        return y.array * gy.array


class CtxCube(Function):
    """Backward written with Variables: differentiable twice."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, gy):
        x, = ctx.saved_tensors
        return 3 * x * x * gy


class SquareNode(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * x * 2.0,


class MulNode(FunctionNode):
    """Keeps both inputs: more than one array, so the checker records them in its tuple form."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple([gy * b, gy * a][i] for i in indexes)


class ExpNode(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


class OldStyleSquare(OldStyleFunction):
    def forward(self, inputs):
        return inputs[0] * inputs[0],

    def backward(self, inputs, grad_outputs):
        return 2 * inputs[0] * grad_outputs[0],
