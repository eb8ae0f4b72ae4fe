"""``unpooling_2d``: the inverse of pooling, copying each entry over its window, and its
gradient node.

Layer 5: imports variable, function_node and ``functions.pooling``. The gradient
sums each window; its own gradient is unpooling again.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.pooling_2d import Pooling2D


class Unpooling2D(Pooling2D):
    """Unpooling of ``(n, c, h, w)`` planes. Use :func:`unpooling_2d`."""

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> None:
        super().__init__(ksize, stride, pad, cover_all)
        self.outh: int | None
        self.outw: int | None
        if outsize is None:
            self.outh, self.outw = None, None
        else:
            self.outh, self.outw = _pooling.pair(outsize, "outsize")

    def check_type_forward(self, in_types: Any) -> None:
        _pooling.check_one_float_4d_input(in_types)
        _pooling.expect_pooled_back(in_types[0], self.window, self.outh, self.outw,
                                    self.cover_all)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.outh, self.outw = _pooling.unpooled_size(self.label, x.shape, self.window,
                                                      self.outh, self.outw, self.cover_all)
        return _pooling.scatter_windows(x, self.window, self.outh, self.outw),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Unpooling2DGrad(self).apply(grad_outputs)


class Unpooling2DGrad(FunctionNode):
    """Sums each window of the output gradient of :class:`Unpooling2D`."""

    def __init__(self, unpooling: Unpooling2D) -> None:
        self.window = unpooling.window
        self.cover_all = unpooling.cover_all
        self.outsize = (unpooling.outh, unpooling.outw)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        window = self.window
        height, width = self.outsize
        # The input's size: the number of windows over the unpooled planes.
        h, w = window.pooled_size(height, width, self.cover_all)  # type: ignore[arg-type]
        kh, kw = window.ksize
        if (window.pad == (0, 0) and window.stride == window.ksize and kh == kw
                and (height, width) == (h * kh, w * kw)):
            # compat: an integer-scale unpooling (square windows tiling the planes exactly, the
            # case Chainer's test picks); Chainer sums its windows as the last two axes of a
            # reshaped view, which rounds differently from the position-by-position sum below
            # (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
            xp = backend.get_array_module(gy)
            tiles = gy.reshape(gy.shape[:2] + (h, kh, w, kw))
            return xp.rollaxis(tiles, 3, 5).sum(axis=(4, 5)),
        return _pooling.sum_windows(gy, window, h, w),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ksize, stride, pad = self.window.arguments()
        return Unpooling2D(ksize, stride, pad, self.outsize, self.cover_all).apply(grad_outputs)


def unpooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> variable.Variable:
    """Spatial unpooling: each entry is copied over its ``ksize`` window of a larger plane,
    and copies that overlap are added.

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int ``k`` (meaning ``(k, k)``) or a pair.
        stride: Step between windows: an int, a pair, or None for ``ksize``.
        pad: Cropped from each side of the result: an int or a pair.
        outsize: ``(out_h, out_w)`` of the result, or None for the smallest size that
            :func:`max_pooling_2d` with the same arguments pools back to ``(h, w)``.
        cover_all: Whether that pooling would use ``cover_all``; it sets the default
            ``outsize`` and which sizes ``outsize`` may take.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array of four
            dimensions, or pooling ``outsize`` would not give ``(h, w)``.
        ValueError: If a window argument is out of range.
    """
    return Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))[0]
