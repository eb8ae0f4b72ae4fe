"""``simplified_dropconnect``: a linear layer whose weights are randomly dropped (per sample
by default) and rescaled, in training.

Layer 5: imports backend, configuration, variable, function_node, type_check and
``functions`` (broadcast, cast, matmul, reshape, sum); the backward also uses Variable's ``*``
and indexing. Masks come from the array module's global RNG.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.configuration import thread_flags
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
        # The row length is spelled out: ``-1`` cannot be inferred for an empty batch.
        matrix = x.reshape(len(x), _row_size(x.shape))
        kept = weight * scale * self.mask
        # Per sample i: y_i = kept_i @ x_i (kept is shared when the mask is not batchwise).
        y = xp.matmul(kept, matrix[:, :, None])[:, :, 0].astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y = y + inputs[2]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Composed of differentiable functions, so the gradient has gradients too. compat:
        # Chainer's nodes in Chainer's order (hooks and graphs see them): the dropped weight is
        # built first whichever gradients are asked for, gy and x gain their unit axes by
        # indexing, and W's gradient masks the broadcast outer product before summing it.
        x, weight = self.get_retained_inputs()
        gy, = grad_outputs
        batch = x.shape[0]
        scale = weight.dtype.type(1.0 / (1 - self.ratio))
        matrix = x if x.ndim == 2 else _reshape(x, (batch, _row_size(x.shape)))
        mask = self.mask
        if self.use_batchwise_mask:
            kept = _broadcast_to(weight, mask.shape) * scale * mask
        else:
            kept = _broadcast_to(weight * scale * mask, (batch,) + mask.shape)
        grads: list[Any] = []
        if 0 in indexes:
            gx = _reshape(_matmul(gy[:, None, :], kept), x.shape)
            grads.append(_cast(gx, matrix.dtype))
        if 1 in indexes:
            flags = thread_flags.flags
            if flags.enable_backprop or flags.hooks or flags.debug:
                gy_column = gy[:, :, None]
                x_row = matrix[:, None, :]
                shape = (batch, gy.shape[1], matrix.shape[1])
                outer = _broadcast_to(gy_column, shape) * _broadcast_to(x_row, shape)
                masked = outer * mask
            else:
                # Nothing can see these nodes (NOTE [operators without a node] in
                # basic_math): the same products on arrays, masked in place to spare a
                # (n, M, N) temporary. A bool mask multiplies as its 0/1 cast would.
                masked = gy.array[:, :, None] * matrix.array[:, None, :]
                masked *= mask if mask.dtype.kind == "b" else mask.astype(masked.dtype)
            gw = _sum(masked, axis=0) * scale
            grads.append(_cast(gw, kept.dtype))
        if 2 in indexes:
            grads.append(_sum(gy, axis=0))
        return tuple(grads)


def _row_size(shape: tuple[int, ...]) -> int:
    """The number of entries of one sample of an input of ``shape``."""
    size = 1
    for length in shape[1:]:
        size *= length
    return size


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
