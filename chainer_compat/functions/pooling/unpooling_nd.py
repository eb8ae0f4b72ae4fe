"""``unpooling_nd``: the inverse of N-d pooling, copying each entry over its window, its 1-D and
3-D forms, and its gradient node, which sums each window.

Layer 5: imports variable, function_node, type_check, ``utils.conv_nd`` and
``functions.pooling``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.pooling_nd import _PoolingND
from chainer_compat.utils import type_check
from chainer_compat.utils.conv import _size_tuple
from chainer_compat.utils.conv_nd import _check_spatial_ndim


class UnpoolingND(_PoolingND):
    """Unpooling over ``ndim`` spatial axes. Use :func:`unpooling_nd`."""

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 outsize: Any = None, cover_all: bool = True) -> None:
        super().__init__(ndim, ksize, stride, pad, cover_all)
        self.outs: tuple[Any, ...] | None = (
            None if outsize is None else _size_tuple(outsize, ndim, "outsize"))

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 1)
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 2 + self.ndim)
        if self.outs is None:
            return
        expected = self.window.pooled_size(self.outs, self.cover_all)
        # compat: one check of all the spatial axes, whose Expect line Chainer prints.
        type_check.expect(x_type.shape[2:] == expected)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        if self.outs is None:
            self.outs = self.window.unpooled_size(x.shape[2:], self.cover_all)
        _pooling.check_unpooled_size(self.label, x.shape, self.outs)
        return _pooling.scatter_windows_nd(x, self.window, self.outs),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return UnpoolingNDGrad(self).apply(grad_outputs)


class UnpoolingNDGrad(FunctionNode):
    """Sums each window of the output gradient of :class:`UnpoolingND`."""

    def __init__(self, unpooling: UnpoolingND) -> None:
        self.ndim = unpooling.ndim
        self.window = unpooling.window
        self.cover_all = unpooling.cover_all
        self.outs: tuple[int, ...] = tuple(unpooling.outs or ())

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        # The input's size: the number of windows over the unpooled volume.
        spatial = self.window.pooled_size(self.outs, self.cover_all)
        return _pooling.sum_windows_nd(gy, self.window, spatial),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ksize, stride, pad = self.window.arguments()
        node = UnpoolingND(self.ndim, ksize, stride, pad, self.outs, self.cover_all)
        return node.apply(grad_outputs)


def unpooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> variable.Variable:
    """N-dimensional unpooling: each entry is copied over its ``ksize`` window of a larger
    volume, and copies that overlap are added.

    Args:
        x: Input Variable or array of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size: an int or N ints.
        stride: Step between windows: an int, N ints, or None for ``ksize``.
        pad: Cropped from each side of each spatial axis of the result.
        outsize: Spatial shape of the result (N ints), or None for the smallest one that
            :func:`max_pooling_nd` with the same arguments pools back to ``x``'s.
        cover_all: Whether that pooling would use ``cover_all``.

    Returns:
        A Variable of shape ``(n, c, l_1, ..., l_N)``.

    Raises:
        ValueError: If a window argument is out of range or of the wrong length.
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array, or
            pooling ``outsize`` would not give ``x``'s spatial shape.
    """
    node = UnpoolingND(len(x.shape[2:]), ksize, stride, pad, outsize, cover_all)
    y: variable.Variable = node.apply((x,))[0]
    return y


def unpooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> variable.Variable:
    """1-D unpooling: :func:`unpooling_nd` on input of shape ``(n, c, d)``.

    Raises:
        ValueError: If ``x`` does not have exactly one axis after the channel axis, and as
            :func:`unpooling_nd` does.
    """
    _check_spatial_ndim(x, 1)
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> variable.Variable:
    """3-D unpooling: :func:`unpooling_nd` on input of shape ``(n, c, d_1, d_2, d_3)``.

    Raises:
        ValueError: If ``x`` does not have exactly three axes after the channel axis, and as
            :func:`unpooling_nd` does.
    """
    _check_spatial_ndim(x, 3)
    return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)
