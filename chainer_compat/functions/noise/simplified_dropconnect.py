"""``simplified_dropconnect``: a linear layer whose weights are randomly dropped (per sample
by default) and rescaled, in training.

Layer 5: imports backend, variable, function_node, type_check and ``functions`` (broadcast,
cast, matmul, reshape, sum). Masks come from the array module's global RNG.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to as _broadcast_to
from chainer_compat.functions.array.cast import cast as _cast
from chainer_compat.functions.array.reshape import reshape as _reshape
from chainer_compat.functions.math.matmul import matmul as _matmul
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check


class SimplifiedDropconnect(FunctionNode):
    """Linear unit with simplified dropconnect. Use :func:`simplified_dropconnect`.

    Args:
        ratio: Probability of dropping each weight, in ``[0, 1)``.
        mask: A mask to use instead of a random one (``(n, M, N)`` batchwise, else
            ``(M, N)``; nonzero keeps a weight), or None; the mask used is stored here.
        use_batchwise_mask: Draw a separate mask for each sample.
    """

    def __init__(self, ratio: float, mask: Any = None, use_batchwise_mask: bool = True
                 ) -> None:
        self.ratio = ratio
        self.mask = mask
        self.use_batchwise_mask = use_batchwise_mask

    def check_type_forward(self, in_types: Any) -> None:
        count = in_types.size()
        type_check.expect(2 <= count, count <= 3)
        x_type, w_type = in_types[:2]
        type_check._argname((x_type, w_type), ("x", "W"))
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim >= 2,
            w_type.ndim == 2,
            type_check.prod(x_type.shape[1:]) == w_type.shape[1],
        )
        if type_check.eval(count) == 3:
            b_type = in_types[2]
            type_check._argname((b_type,), ("b",))
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )
        if self.mask is not None:
            if self.use_batchwise_mask:
                type_check.expect(
                    self.mask.shape[0] == x_type.shape[0],
                    self.mask.shape[1:] == w_type.shape,
                )
            else:
                type_check.expect(self.mask.shape == w_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, weight = inputs[:2]
        xp = backend.get_array_module(x)
        if self.mask is None:
            shape = weight.shape
            if self.use_batchwise_mask:
                shape = (x.shape[0],) + shape
            if xp is numpy:
                self.mask = xp.random.rand(*shape) >= self.ratio
            else:
                self.mask = xp.random.rand(*shape, dtype=numpy.float32) >= self.ratio
        elif isinstance(self.mask, variable.Variable):
            self.mask = self.mask.array
        scale = weight.dtype.type(1.0 / (1 - self.ratio))
        matrix = x.reshape(len(x), -1)
        kept = weight * scale * self.mask
        # Per sample i: y_i = kept_i @ x_i (kept is shared when the mask is not batchwise).
        y = xp.matmul(kept, matrix[:, :, None])[:, :, 0].astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y = y + inputs[2]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Composed of differentiable functions, so the gradient has gradients too.
        x, weight = self.get_retained_inputs()
        gy, = grad_outputs
        batch = x.shape[0]
        scale = weight.dtype.type(1.0 / (1 - self.ratio))
        matrix = _reshape(x, (batch, -1))
        mask = self.mask
        grads: list[Any] = []
        if 0 in indexes:
            kept = weight * scale * mask
            if kept.ndim == 2:
                kept = _broadcast_to(kept, (batch,) + kept.shape)
            gx = _matmul(_reshape(gy, (batch, 1, -1)), kept)
            grads.append(_cast(_reshape(gx, x.shape), x.dtype))
        if 1 in indexes:
            outer = _reshape(gy, gy.shape + (1,)) * _reshape(matrix, (batch, 1, -1))
            if mask.ndim == 3:
                gw = _sum(outer * mask, axis=0)
            else:
                gw = _sum(outer, axis=0) * mask
            grads.append(_cast(gw * scale, weight.dtype))
        if 2 in indexes:
            grads.append(_sum(gy, axis=0))
        return tuple(grads)


def simplified_dropconnect(x: Any, W: Any, b: Any = None, ratio: float = 0.5,  # noqa: N803
                           train: bool = True, mask: Any = None,
                           use_batchwise_mask: bool = True) -> variable.Variable:
    """Linear unit with simplified dropconnect: ``y = x (mask * W / (1 - ratio))^T + b``,
    where each weight is dropped with probability ``ratio``.

    Args:
        x: Float input of shape ``(n, ...)``; the axes after the first flatten to ``N``.
        W: Weight of shape ``(M, N)``.
        b: Bias of shape ``(M,)``, or None.
        ratio: Probability of dropping a weight, in ``[0, 1)``.
        train: Drop weights; with False the ratio is taken as 0 (a plain linear unit, unless
            ``mask`` is given).
        mask: A mask to use instead of drawing one: ``(n, M, N)`` with
            ``use_batchwise_mask``, else ``(M, N)``; nonzero keeps a weight.
        use_batchwise_mask: Draw a separate mask for each sample.

    Returns:
        A Variable of shape ``(n, M)``.

    Compat: ``train`` is an argument here, as in Chainer (not ``chainer.config.train``).

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    if not train:
        ratio = 0
    node = SimplifiedDropconnect(ratio, mask, use_batchwise_mask)
    if b is None:
        return node.apply((x, W))[0]
    return node.apply((x, W, b))[0]
