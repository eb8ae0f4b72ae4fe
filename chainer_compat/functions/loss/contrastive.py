"""``contrastive``: the contrastive loss of pairs labelled similar (1) or dissimilar (0).

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.loss._options import check_positive_margin, check_reduce
from chainer_compat.utils import type_check

# Distances below this are clamped before dividing by them.
_TINY_DISTANCE = 1e-8


class Contrastive(FunctionNode):
    """Contrastive loss. Use :func:`contrastive`."""

    def __init__(self, margin: float, reduce: str = "mean") -> None:
        check_positive_margin(margin, "contrastive")
        self.margin = margin
        check_reduce(reduce, ("mean", "no"), "contrastive")
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x0", "x1", "y"))
        x0_type, x1_type, y_type = in_types
        type_check.expect(
            x0_type.dtype.kind == "f",
            x0_type.dtype == x1_type.dtype,
            y_type.dtype.kind == "i",
            x0_type.shape == x1_type.shape,
            x1_type.shape[0] == y_type.shape[0],
            x1_type.shape[0] > 0,
            x0_type.ndim == 2,
            x1_type.ndim == 2,
            y_type.ndim == 1,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, y = inputs
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        dist_sq = xp.sum(diff * diff, axis=1)
        gap = xp.maximum(self.margin - xp.sqrt(dist_sq), 0)
        loss = (y * dist_sq + (1 - y) * gap * gap) * 0.5
        if self.reduce == "mean":
            loss = xp.sum(loss) / len(x0)
        return utils.force_array(loss, x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.array.reshape import reshape
        from chainer_compat.functions.math.sum import sum as _sum

        x0, x1, y = self.get_retained_inputs()
        gy, = grad_outputs
        count = len(x0)
        dtype = x0.dtype
        similar = y.array.astype(dtype)
        diff = x0 - x1
        dist = _sum(diff * diff, axis=1) ** 0.5
        # max(dist, tiny): the clamped entries become constants.
        kept = utils.force_array(dist.array >= _TINY_DISTANCE).astype(dtype)
        safe_dist = dist * kept + (1 - kept) * dtype.type(_TINY_DISTANCE)
        gap = self.margin - dist
        gap = gap * utils.force_array(gap.array > 0).astype(dtype)
        if self.reduce == "mean":
            gy = broadcast_to(gy * (1.0 / count), (count,))
        # Per pair: d(loss)/d(x0) = coefficient * (x0 - x1).
        coefficient = gy * (similar - (1 - similar) * gap / safe_dist)
        gx0 = broadcast_to(reshape(coefficient, (count, 1)), diff.shape) * diff
        grads = {0: gx0, 1: -gx0, 2: None}
        return tuple([grads[i] for i in indexes])


def contrastive(x0: Any, x1: Any, y: Any, margin: float = 1,
                reduce: str = "mean") -> variable.Variable:
    """Contrastive loss ``(y d**2 + (1 - y) max(margin - d, 0)**2) / 2`` per pair, where ``d``
    is the Euclidean distance between the rows of ``x0`` and ``x1``.

    Args:
        x0: First float input of shape ``(N, K)``.
        x1: Second input, of ``x0``'s shape and dtype.
        y: Signed integer labels of shape ``(N,)``: 1 for similar pairs, 0 for dissimilar.
        margin: Positive margin for dissimilar pairs.
        reduce: ``'mean'`` over pairs, or ``'no'`` for one loss per pair.

    Returns:
        The loss: shape ``()``, or ``(N,)`` for ``'no'``.

    Raises:
        ValueError: On a non-positive ``margin`` or an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    return Contrastive(margin, reduce).apply((x0, x1, y))[0]
