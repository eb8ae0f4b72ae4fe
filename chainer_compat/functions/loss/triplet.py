"""``triplet``: the triplet margin loss of (anchor, positive, negative) examples.

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.loss._options import check_positive_margin, check_reduce
from chainer_compat.utils import type_check


class Triplet(FunctionNode):
    """Triplet loss. Use :func:`triplet`."""

    def __init__(self, margin: float, reduce: str = "mean") -> None:
        check_positive_margin(margin, "triplet")
        self.margin = margin
        check_reduce(reduce, ("mean", "no"), "triplet")
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("anchor", "positive", "negative"))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].dtype == in_types[2].dtype,
            in_types[0].shape == in_types[1].shape,
            in_types[0].shape == in_types[2].shape,
            in_types[0].shape[0] > 0,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        anchor, positive, negative = inputs
        xp = backend.get_array_module(anchor)
        to_positive = anchor - positive
        to_negative = anchor - negative
        dist = xp.sum(to_positive * to_positive - to_negative * to_negative, axis=1)
        self.dist_hinge = xp.maximum(dist + self.margin, 0)
        loss = self.dist_hinge
        if self.reduce == "mean":
            loss = xp.sum(loss) / len(anchor)
        return utils.force_array(loss, anchor.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        anchor, positive, negative = self.get_retained_inputs()
        gy, = grad_outputs
        xp = backend.get_array_module(anchor.array)
        # The loss has one entry per fiber along axis 1, shape (N, *shape[2:]): each entry's
        # hinge is repeated over its fiber.
        active = xp.repeat(self.dist_hinge[:, None], anchor.shape[1], axis=1) > 0
        active = utils.force_array(active).astype(anchor.dtype)
        if self.reduce == "mean":
            gy = gy / len(anchor)
        else:
            gy = gy[:, None]
        scale = 2 * broadcast_to(gy, anchor.shape) * active
        # compat: Chainer's order of operands, so that the gradients round as Chainer's.
        grads = []
        for i in indexes:
            if i == 0:
                grads.append(scale * (negative - positive))
            elif i == 1:
                grads.append(scale * (positive - anchor))
            else:
                grads.append(scale * (anchor - negative))
        return tuple(grads)


def triplet(anchor: Any, positive: Any, negative: Any, margin: float = 0.2,
            reduce: str = "mean") -> variable.Variable:
    """Triplet loss ``max(|a - p|**2 - |a - n|**2 + margin, 0)`` per sample (squared
    Euclidean distances over axis 1).

    Inputs of more than two dimensions give one loss per fiber along axis 1: the distances
    are summed over axis 1 only.

    Args:
        anchor: Float anchor examples of shape ``(N, K)`` or ``(N, K, ...)``.
        positive: Positive examples, of ``anchor``'s shape and dtype.
        negative: Negative examples, of ``anchor``'s shape and dtype.
        margin: Positive margin.
        reduce: ``'mean'``: the sum of the losses divided by ``N``; ``'no'``: every loss.

    Returns:
        The loss: shape ``()``, or ``(N,) + anchor.shape[2:]`` for ``'no'``.

    Raises:
        ValueError: On a non-positive ``margin`` or an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    return Triplet(margin, reduce).apply((anchor, positive, negative))[0]
