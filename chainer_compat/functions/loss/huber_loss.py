"""``huber_loss``: squared error near zero, absolute error beyond ``delta``.

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.expand_dims import expand_dims
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.clip import clip
from chainer_compat.utils import _select, type_check


class HuberLoss(FunctionNode):
    """Huber loss. Use :func:`huber_loss`."""

    def __init__(self, delta: float, reduce: str = "sum_along_second_axis") -> None:
        self.delta = delta
        check_reduce(reduce, ("sum_along_second_axis", "no"), "huber_loss")
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].shape == in_types[1].shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        dtype = x.dtype
        delta = dtype.type(self.delta)
        distance = utils.force_array(abs(x - t), dtype)
        half = dtype.type(0.5)
        loss = _select.where(distance <= delta, half * distance * distance,
                             delta * (distance - half * delta))
        if self.reduce == "sum_along_second_axis":
            loss = loss.sum(axis=1)
        return utils.force_array(loss, dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        # d/d(x - t) is x - t inside the quadratic zone and +-delta beyond it: the clipped
        # difference.
        slope = clip(x - t, -self.delta, self.delta)
        if self.reduce == "sum_along_second_axis":
            gy = expand_dims(gy, 1)
        gx = broadcast_to(gy, slope.shape) * slope
        # compat: t's gradient is negated even when it is not wanted, as in Chainer, so that
        # a hook sees the same nodes.
        all_grads = (gx, -gx)
        return tuple(all_grads[index] for index in indexes)


def huber_loss(x: Any, t: Any, delta: float,
               reduce: str = "sum_along_second_axis") -> variable.Variable:
    """Huber loss of ``a = x - t``: ``a**2 / 2`` where ``|a| <= delta``, else
    ``delta * (|a| - delta / 2)``.

    Args:
        x: Float input of shape ``(N, K, ...)``.
        t: Target of ``x``'s shape and dtype.
        delta: The threshold between the quadratic and the linear part.
        reduce: ``'sum_along_second_axis'`` sums the losses over axis 1; ``'no'`` keeps
            them elementwise.

    Returns:
        The loss Variable: ``x``'s shape without axis 1, or ``x``'s shape for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return HuberLoss(delta=delta, reduce=reduce).apply((x, t))[0]
