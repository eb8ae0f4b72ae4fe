"""``average_pooling_nd``: the mean of each window over N spatial axes, its 1-D and 3-D forms,
and its gradient node, whose own gradient is average pooling again.

Layer 5: imports backend, variable, function_node, type_check, ``utils.conv_nd`` and
``functions.pooling``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.pooling_nd import _PoolingND
from chainer_compat.utils import conv_nd, type_check
from chainer_compat.utils.conv_nd import _check_spatial_ndim


def _divisor(window: _pooling.WindowND, pad_value: Any, spatial: tuple[int, ...],
             outs: tuple[int, ...], like: Any) -> Any:
    """What each window's sum is divided by: the window's size, or with ``pad_value=None``
    an array ``(1, 1, *outs)`` of how many of its entries are not padding."""
    if pad_value is not None:
        return like.dtype.type(window.area)
    # compat: the product of each axis's count of input entries, taken in like's dtype one
    # axis at a time, as Chainer forms it: a float16 count above 2048 rounds there (47 x 47
    # entries count 2208), and sums divided by it round alike.
    counts: Any = None
    for size, out, (k, s, p) in zip(spatial, outs, zip(*window.arguments())):
        starts = numpy.arange(out) * s - p
        widths = (numpy.minimum(starts + k, size) - numpy.maximum(starts, 0)).astype(like.dtype)
        counts = widths if counts is None else counts[..., None] * widths
    xp = backend.get_array_module(like)
    return xp.asarray(counts).reshape((1, 1) + tuple(outs))


def _float16_sums_over_counts(x: Any, window: _pooling.WindowND, outs: tuple[int, ...]) -> Any:
    """compat: float16 average pooling with ``pad_value=None`` as Chainer computes it on the
    CPU: NumPy's float16 sum over the window axes of the im2col copy, rounded to float16 as
    NumPy's reduction goes, divided by the float16 count of each window's input entries. (With
    ``pad_value=0`` Chainer takes the windows' mean, which NumPy accumulates in float32.)"""
    ksize, stride, pad = window.arguments()
    col = conv_nd.im2col_nd(x, ksize, stride, pad)
    total = col.sum(axis=tuple(range(2, 2 + len(ksize))))
    counts = _divisor(window, None, x.shape[2:], outs, x)
    return total / counts[0, 0]


class AveragePoolingND(_PoolingND):
    """Average pooling over ``ndim`` spatial axes. Use :func:`average_pooling_nd`.

    Raises:
        ValueError: If ``cover_all`` is true (Chainer does not support it either) or
            ``pad_value`` is neither 0 nor None.
    """

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = False, pad_value: Any = 0) -> None:
        if not (pad_value is None or pad_value == 0):
            raise ValueError(f"pad_value must be either 0 or None, not {pad_value}.")
        if cover_all:
            raise ValueError("`cover_all` mode is not supported yet.")
        super().__init__(ndim, ksize, stride, pad, cover_all=False)
        self.pad_value = pad_value
        self._in_shape: tuple[int, ...] = ()

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(
            in_types.size() == 1,
            in_types[0].dtype.kind == "f",
            in_types[0].ndim == 2 + self.ndim,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        window = self.window
        outs = window.pooled_size(x.shape[2:], False)
        _pooling.check_output_size_nd(self.label, x.shape, outs)
        self._in_shape = x.shape
        if self.pad_value is None and x.dtype == numpy.float16 and type(x) is numpy.ndarray:
            return _float16_sums_over_counts(x, window, outs),
        wide = _pooling.widened_for_sums(x)
        total = _pooling.sum_windows_nd(wide, window, outs)
        divisor = _divisor(window, self.pad_value, x.shape[2:], outs, wide)
        return (total / divisor).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AveragePoolingNDGrad(self).apply(grad_outputs)


class AveragePoolingNDGrad(FunctionNode):
    """Spreads each output gradient of :class:`AveragePoolingND` over its window."""

    def __init__(self, pooling: AveragePoolingND) -> None:
        self.ndim = pooling.ndim
        self.window = pooling.window
        self.pad_value = pooling.pad_value
        self._in_shape = pooling._in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        spatial = tuple(self._in_shape[2:])
        if self.pad_value is None:
            divisor = _divisor(self.window, None, spatial, tuple(gy.shape[2:]), gy)
            scaled = (gy / divisor).astype(gy.dtype, copy=False)
            return _pooling.scatter_windows_nd(scaled, self.window, spatial),
        # Summed first and divided once, in Chainer's order, so float16 results match its.
        gx = _pooling.scatter_windows_nd(gy, self.window, spatial)
        gx /= gx.dtype.type(self.window.area)
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ksize, stride, pad = self.window.arguments()
        node = AveragePoolingND(self.ndim, ksize, stride, pad, pad_value=self.pad_value)
        return node.apply(grad_outputs)


def average_pooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                       pad_value: Any = 0) -> variable.Variable:
    """N-dimensional average pooling: the mean of each ``ksize`` window.

    Args:
        x: Input Variable or array of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size: an int or N ints.
        stride: Step between windows: an int, N ints, or None for ``ksize``.
        pad: Padding on each side of each spatial axis: an int or N ints.
        pad_value: 0 to count the padding as zeros, every window's sum divided by the
            window's size; None to leave the padding out, each sum divided by the number of
            input entries in its window.

    Returns:
        A Variable of shape ``(n, c, l_1, ..., l_N)`` with ``l_i = (d_i + 2 p_i - k_i) // s_i
        + 1``.

    Raises:
        ValueError: If ``pad_value`` is neither 0 nor None, or a window argument is out of
            range or of the wrong length (also raised as AssertionError when the output would
            be empty).
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array.
    """
    node = AveragePoolingND(len(x.shape[2:]), ksize, stride, pad, pad_value=pad_value)
    y: variable.Variable = node.apply((x,))[0]
    return y


def average_pooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                       pad_value: Any = 0) -> variable.Variable:
    """1-D average pooling: :func:`average_pooling_nd` on input of shape ``(n, c, d)``.

    Raises:
        ValueError: If ``x`` does not have exactly one axis after the channel axis, and as
            :func:`average_pooling_nd` does.
    """
    _check_spatial_ndim(x, 1)
    return average_pooling_nd(x, ksize, stride, pad, pad_value)


def average_pooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                       pad_value: Any = 0) -> variable.Variable:
    """3-D average pooling: :func:`average_pooling_nd` on input of shape ``(n, c, d_1, d_2,
    d_3)``.

    Raises:
        ValueError: If ``x`` does not have exactly three axes after the channel axis, and as
            :func:`average_pooling_nd` does.
    """
    _check_spatial_ndim(x, 3)
    return average_pooling_nd(x, ksize, stride, pad, pad_value)
