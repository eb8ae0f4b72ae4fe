"""``cross_covariance``: the squared cross-covariance between two sets of units, and its node
``CrossCovariance``.

Layer 5: imports variable, function_node, type_check and the array and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.loss._covariance import (
    covariance_array,
    half_squared_sum_array,
)
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.average import average
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.utils import type_check


class CrossCovariance(FunctionNode):
    """The cross-covariance loss of ``(y, z)``. Use :func:`cross_covariance`.

    Its gradients are built from differentiable functions, so it can be differentiated twice.

    Args:
        reduce: ``'half_squared_sum'`` or ``'no'``, as :func:`cross_covariance` takes.

    Raises:
        ValueError: On an invalid ``reduce``.
    """

    def __init__(self, reduce: str = "half_squared_sum") -> None:
        check_reduce(reduce, ("half_squared_sum", "no"), "cross_covariance")
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("y", "z"))
        y_type, z_type = in_types
        type_check.expect(
            y_type.dtype.kind == "f",
            y_type.dtype == z_type.dtype,
            y_type.ndim == 2,
            z_type.ndim == 2,
        )
        # A second call: a light check reads shape[0] at once, so the ndims must hold first.
        type_check.expect(y_type.shape[0] == z_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, z = inputs
        covariance = covariance_array(y, z)[2]
        if self.reduce == "half_squared_sum":
            return half_squared_sum_array(covariance),
        return covariance,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, z = self.get_retained_inputs()
        grad_loss, = grad_outputs
        # compat: Chainer's nodes in its order, with its arithmetic (the covariance recomputed
        # from the centered inputs, each gradient scaled after its product).
        y_mean = average(y, axis=0, keepdims=True)
        z_mean = average(z, axis=0, keepdims=True)
        y_centered = y - broadcast_to(y_mean, y.shape)
        z_centered = z - broadcast_to(z_mean, z.shape)
        # A Python float, so that the node's label shows 1 / N as Chainer's does.
        grad_over_count = grad_loss / float(len(y))
        grads = []
        if self.reduce == "half_squared_sum":
            covariance = matmul(y_centered.T, z_centered) / len(y)
            if 0 in indexes:
                gy = matmul(z_centered, covariance.T)
                grads.append(gy * broadcast_to(grad_over_count, gy.shape))
            if 1 in indexes:
                gz = matmul(y_centered, covariance)
                grads.append(gz * broadcast_to(grad_over_count, gz.shape))
        else:
            if 0 in indexes:
                grads.append(matmul(z_centered, grad_over_count.T))
            if 1 in indexes:
                grads.append(matmul(y_centered, grad_over_count))
        return tuple(grads)


def cross_covariance(y: Any, z: Any, reduce: str = "half_squared_sum") -> variable.Variable:
    """Cross-covariance loss between two sets of activations (Cheung et al., 2015).

    With ``C = (y - mean(y)).T @ (z - mean(z)) / N`` (means over the batch), the loss is
    ``0.5 * sum(C ** 2)``. It can be differentiated twice.

    Args:
        y: Activations of shape ``(N, M)``.
        z: Activations of shape ``(N, K)``.
        reduce: ``'half_squared_sum'`` returns the loss; ``'no'`` returns ``C`` itself.

    Returns:
        The loss of shape ``()``, or ``C`` of shape ``(M, K)`` for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: If ``y`` or ``z`` is not a 2-d float
            array, their dtypes differ, or their batch sizes differ.
    """
    loss: variable.Variable = CrossCovariance(reduce).apply((y, z))[0]
    return loss
