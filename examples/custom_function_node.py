"""A first graph: a custom FunctionNode, Variable operators, backprop and double backprop.

Run it with ``python examples/custom_function_node.py``.
"""

from __future__ import annotations

import numpy

import chainer_compat as chainer
import chainer_compat.functions as F


class Softsign(chainer.FunctionNode):
    """y = x / (1 + |x|), with a backward written in Variable operators (so it is twice
    differentiable)."""

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return x / (1 + abs(x)),

    def backward(self, target_input_indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        denominator = 1 + abs(x)
        return gy / (denominator * denominator),


def main() -> None:
    x = chainer.Variable(numpy.linspace(-2.0, 2.0, 5).astype(numpy.float32), name="x")
    y, = Softsign().apply((x,))
    loss = F.sum(y * y)
    loss.backward(enable_double_backprop=True)
    expected = 2 * y.array / (1 + numpy.abs(x.array)) ** 2
    print("x            ", x.array)
    print("softsign(x)  ", y.array)
    print("d loss / d x ", x.grad)
    assert numpy.allclose(x.grad, expected, atol=1e-6), "gradient mismatch"

    # Differentiate the gradient once more: d/dx sum(grad) with the recorded backward graph.
    first_order = x.grad_var
    x.cleargrad()
    F.sum(first_order).backward()
    print("d2 loss / dx2", x.grad)
    print("ok: gradients match the closed form")


if __name__ == "__main__":
    main()
