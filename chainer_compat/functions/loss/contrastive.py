"""``contrastive``: the contrastive loss of pairs labelled similar (1) or dissimilar (0).

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.cast import cast
from chainer_compat.functions.array.repeat import repeat
from chainer_compat.functions.loss._options import check_positive_margin, check_reduce
from chainer_compat.functions.math.maximum import maximum
from chainer_compat.functions.math.sqrt import sqrt
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check


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
        x0, x1, y = self.get_retained_inputs()
        gy, = grad_outputs
        xp = backend.get_array_module(gy.array)
        # compat: Chainer's nodes, in its order and with its operands (so its rounding):
        # every per-pair factor is repeated over the units before it is used.
        diff = x0 - x1
        dist = sqrt(_sum(diff ** 2, axis=1))
        gap = self.margin - dist
        units = x0.shape[1]
        similar = xp.repeat(y.array[:, None], units, axis=1)
        scale = gy / len(similar) if self.reduce == "mean" else gy[:, None]
        scale = broadcast_to(scale, similar.shape)
        dist = repeat(dist[:, None], units, axis=1)
        # Keeps the division below finite; 1e-7 would underflow to 0 in float16.
        tiny = 5e-3 if dist.dtype == numpy.float16 else 1e-7
        dist = maximum(dist, xp.full(dist.shape, tiny, dtype=dist.dtype))
        gx0 = scale * similar.astype(scale.dtype) * diff
        gap = repeat(gap[:, None], units, axis=1)
        gap = maximum(gap, xp.zeros(gap.shape, gap.dtype))
        gx0 = gx0 + scale * (1 - similar) * gap * -(diff / dist)
        gx0 = cast(gx0, x0.dtype)
        # y, the labels, has no gradient; x1's is negated even when unwanted, as in Chainer.
        all_grads = (gx0, -gx0, None)
        return tuple(all_grads[index] for index in indexes)


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
