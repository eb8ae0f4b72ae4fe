"""``space2depth``: moves ``r x r`` spatial blocks into the channel axis, differentiably.

Layer 5: imports the core; its gradient is ``depth2space`` (imported where used, as the two
modules need each other).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Space2Depth(FunctionNode):
    """``(n, c, h, w)`` to ``(n, c * r * r, h / r, w / r)``; the inverse of Depth2Space."""

    def __init__(self, r: int) -> None:
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        r = self.r
        batch, channels, height, width = x.shape
        if height % r or width % r:
            # compat: Chainer lets the reshape fail, a ValueError.
            raise ValueError(f"the height and width of x must be multiples of r={r}, "
                             f"got x.shape={x.shape}")
        xp = backend.get_array_module(x)
        # Output channel (i * r + j) * c + k holds input channel k at block offset (i, j).
        blocks = x.reshape(batch, channels, height // r, r, width // r, r)
        blocks = xp.transpose(blocks, (0, 3, 5, 1, 2, 4))
        # compat: reshaped as Chainer reshapes it: a copy in C order unless a view will do.
        return blocks.reshape(batch, r * r * channels, height // r, width // r),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # Imported here: depth2space imports this module.
        from chainer_compat.functions.array.depth2space import depth2space

        return depth2space(grad_outputs[0], self.r),


def space2depth(X: Any, r: int) -> variable.Variable:
    """Rearranges each ``r x r`` spatial block of ``X`` into channels (the inverse of
    :func:`depth2space`).

    Args:
        X: Input Variable or array (float) of shape ``(n, c, h, w)``, with ``h`` and ``w``
            multiples of ``r``.
        r: The block size.

    Returns:
        A Variable of shape ``(n, c * r * r, h / r, w / r)``.

    Raises:
        ValueError: If ``h`` or ``w`` is not a multiple of ``r``.
    """
    y, = Space2Depth(r).apply((X,))
    return y
