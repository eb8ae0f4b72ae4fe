"""``sigmoid_cross_entropy``: binary cross entropy of ``sigmoid(x)`` against 0/1 labels.

Layer 5: imports backend, utils, variable, function_node and type_check; the double backward
uses ``activation.sigmoid`` (imported on use).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check


def _sigmoid_array(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` on an array, without overflow for large ``|x|``."""
    xp = backend.get_array_module(x)
    half = x.dtype.type(0.5)
    return xp.tanh(x * half) * half + half


class SigmoidCrossEntropy(FunctionNode):
    """Sigmoid followed by binary cross entropy. Use :func:`sigmoid_cross_entropy`."""

    # compat: the ignored label is fixed, and readable as a class attribute.
    ignore_label = -1

    def __init__(self, normalize: bool = True, reduce: str = "mean") -> None:
        self.normalize = normalize
        check_reduce(reduce, ("mean", "no"), "sigmoid_cross_entropy")
        self.reduce = reduce
        self.count: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
            x_type.shape == t_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        self.ignore_mask = t != self.ignore_label
        # -(t log p + (1 - t) log(1 - p)) with p = sigmoid(x), in a form that cannot overflow.
        loss = -(self.ignore_mask
                 * (x * (t - (x >= 0)) - xp.log1p(xp.exp(-abs(x)))))
        if self.reduce == "no":
            return utils.force_array(loss, x.dtype),
        if self.normalize:
            count = xp.maximum(1, self.ignore_mask.sum())
        else:
            count = max(1, len(x))
        self.count = count
        return utils.force_array(xp.divide(loss.sum(), count), x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        gx, = SigmoidCrossEntropyGrad(
            self.reduce, self.count, self.ignore_mask, t.array).apply((x, gy))
        return gx, None


class SigmoidCrossEntropyGrad(FunctionNode):
    """The gradient of :class:`SigmoidCrossEntropy` with respect to ``x`` (inputs ``x, gy``)."""

    def __init__(self, reduce: str, count: Any, ignore_mask: Any, t: Any) -> None:
        self.reduce = reduce
        self.count = count
        self.ignore_mask = ignore_mask
        self.t = t

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        gx = gy * self.ignore_mask * (_sigmoid_array(x) - self.t)
        if self.reduce == "mean":
            gx = xp.divide(gx, self.count)
        return utils.force_array(gx, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.activation.sigmoid import sigmoid
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.math.sum import sum as _sum

        ggx, = grad_outputs
        x, gy = self.get_retained_inputs()
        # Chainer's expressions, built in Chainer's order so the rounding and the nodes a
        # FunctionHook sees agree: each gradient is scaled by (mask ggx), a fresh product for
        # each, and divided by the count last (a host count is a product with its reciprocal).
        y = sigmoid(x)
        y_prime = y * (1 - y)
        grad_x = y_prime * broadcast_to(gy, y_prime.shape)
        grad_gy = y - self.t.astype(y.dtype)
        mask = self.ignore_mask.astype(y.dtype)
        grad_x = grad_x * (ggx * mask)
        grad_gy = grad_gy * (ggx * mask)
        if self.reduce == "mean":
            grad_x = grad_x / self.count
            grad_gy = _sum(grad_gy) / self.count
        return grad_x, grad_gy


def sigmoid_cross_entropy(x: Any, t: Any, normalize: bool = True,
                          reduce: str = "mean") -> variable.Variable:
    """Cross entropy of ``sigmoid(x)`` against binary labels, elementwise.

    Args:
        x: Unnormalized log-odds (any shape, float).
        t: Signed integer labels of ``x``'s shape: 1 positive, 0 negative, -1 ignored.
        normalize: With ``reduce='mean'``, divide the sum by the number of labels that are not
            ignored (True) or by ``len(x)`` (False).
        reduce: ``'mean'`` for a scalar loss, ``'no'`` for the elementwise losses (0 where
            ignored).

    Returns:
        The loss Variable; only ``x`` receives a gradient.

    Raises:
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or mismatched shapes.
    """
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]
