"""``batch_l2_norm_squared``: the squared L2 norm of each sample of a batch.

Layer 5: imports the core, ``broadcast_to``, ``reshape`` and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class BatchL2NormSquared(FunctionNode):
    """Sum of squares over all axes but the first."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # Spelled out, not -1: an empty batch has no size to infer it from.
        rows = x.reshape(len(x), utils.size_of_shape(x.shape[1:]))
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        return utils.force_array(sum_in_numpy1_order(rows * rows, axis=1)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return BatchL2NormSquaredGrad().apply((x, grad_outputs[0]))


class BatchL2NormSquaredGrad(FunctionNode):
    """From ``(x, gy)``: ``2 x gy``, each sample's ``gy`` spread over its elements; the
    gradient of :class:`BatchL2NormSquared`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return utils.force_array(2 * x * gy.reshape((len(gy),) + (1,) * (x.ndim - 1))),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        per_sample = broadcast_to(reshape(gy, (len(gy),) + (1,) * (x.ndim - 1)), x.shape)
        twice_ggx = 2 * grad_outputs[0]
        grads = (twice_ggx * per_sample,
                 _sum(twice_ggx * x, axis=tuple(range(1, x.ndim))))
        return tuple(grads[index] for index in indexes)


def batch_l2_norm_squared(x: Any) -> variable.Variable:
    """Squared L2 norm of each sample; the first axis is the batch and is not reduced.

    Args:
        x: Input Variable or array (float, at least 2-D); all axes after the first are
            flattened into one vector per sample.

    Returns:
        A 1-D Variable of length ``len(x)``.
    """
    y, = BatchL2NormSquared().apply((x,))
    return y
