"""``depth2space``: moves channel groups into ``r x r`` spatial blocks, differentiably.

Layer 5: imports the core and ``space2depth`` (its gradient).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.space2depth import space2depth
from chainer_compat.utils import type_check


class Depth2Space(FunctionNode):
    """``(n, c * r * r, h, w)`` to ``(n, c, h * r, w * r)``; the inverse of Space2Depth."""

    def __init__(self, r: int) -> None:
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        r = self.r
        batch, channels, height, width = x.shape
        if channels % (r * r):
            # compat: Chainer lets the reshape fail, a ValueError.
            raise ValueError(f"the channels of x must be a multiple of r * r={r * r}, "
                             f"got x.shape={x.shape}")
        xp = backend.get_array_module(x)
        if xp is numpy:
            # compat: Chainer's CPU route, which returns a channels-last view; later sums over
            # the result (a convolution's bias gradient, say) add in its memory order.
            depth = channels // (r * r)
            pixels = x.transpose(0, 2, 3, 1).reshape(batch, height, width, r, r, depth)
            pixels = pixels.transpose(0, 1, 3, 2, 4, 5).reshape(
                batch, height * r, width * r, depth)
            return pixels.transpose(0, 3, 1, 2),
        # Input channel (i * r + j) * c + k goes to channel k at block offset (i, j).
        groups = x.reshape(batch, r, r, channels // (r * r), height, width)
        groups = xp.transpose(groups, (0, 3, 4, 1, 5, 2))
        return xp.ascontiguousarray(
            groups.reshape(batch, channels // (r * r), height * r, width * r)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return space2depth(grad_outputs[0], self.r),


def depth2space(X: Any, r: int) -> variable.Variable:
    """Rearranges groups of ``r * r`` channels of ``X`` into ``r x r`` spatial blocks (the
    sub-pixel shuffle; the inverse of :func:`space2depth`).

    Args:
        X: Input Variable or array (float) of shape ``(n, c * r * r, h, w)``.
        r: The block size.

    Returns:
        A Variable of shape ``(n, c, h * r, w * r)``.

    Raises:
        ValueError: If the channel count is not a multiple of ``r * r``.
    """
    y, = Depth2Space(r).apply((X,))
    return y
