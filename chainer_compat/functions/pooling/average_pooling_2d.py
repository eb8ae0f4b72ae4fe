"""``average_pooling_2d``: the mean of each window of 2-D planes, and its gradient node.

Layer 5: imports backend, variable, function_node and ``functions.pooling``. The gradient
spreads each output gradient evenly over its window; its own gradient is average pooling again.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.pooling_2d import Pooling2D


class AveragePooling2D(Pooling2D):
    """Average pooling of ``(n, c, h, w)`` planes. Use :func:`average_pooling_2d`.

    Padding counts as zeros in every window, whose sum is always divided by ``kh * kw``.
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = False) -> None:
        super().__init__(ksize, stride, pad, cover_all)
        self._in_shape: tuple[int, ...] = ()

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        window = self.window
        out_h, out_w = window.pooled_size(x.shape[2], x.shape[3], self.cover_all)
        _pooling.check_output_size(self.label, x.shape, out_h, out_w)
        wide = _pooling.widened_for_sums(x)
        total = _pooling.sum_windows(wide, window, out_h, out_w)
        self._in_shape = x.shape
        return (total / wide.dtype.type(window.area)).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AveragePooling2DGrad(self).apply(grad_outputs)


class AveragePooling2DGrad(FunctionNode):
    """Spreads each output gradient of :class:`AveragePooling2D` evenly over its window."""

    def __init__(self, pooling: AveragePooling2D) -> None:
        self.window = pooling.window
        self.cover_all = pooling.cover_all
        self._in_shape = pooling._in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        h, w = self._in_shape[2:]
        # Summed first and divided once, in Chainer's order, so float16 results match its.
        gx = _pooling.scatter_windows(gy, self.window, h, w)
        gx /= gx.dtype.type(self.window.area)
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ksize, stride, pad = self.window.arguments()
        return AveragePooling2D(ksize, stride, pad, self.cover_all).apply(grad_outputs)


def average_pooling_2d(x: Any, ksize: Any, stride: Any = None,
                       pad: Any = 0) -> variable.Variable:
    """Spatial average pooling: the mean of each ``ksize`` window of each plane.

    The padding counts as zeros and every window's sum is divided by ``kh * kw``, so windows
    that overlap the padding are biased towards zero, as in Chainer. There is no ``cover_all``.

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int ``k`` (meaning ``(k, k)``) or a pair.
        stride: Step between windows: an int, a pair, or None for ``ksize``.
        pad: Zero padding on each side of the planes: an int or a pair.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)`` with ``out_h = (h + 2 * ph - kh) // sy
        + 1`` (likewise ``out_w``).

    Raises:
        ValueError: If a window argument is out of range (also raised as AssertionError when
            the output would be empty, as Chainer raises).
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array of four
            dimensions.
    """
    return AveragePooling2D(ksize, stride, pad, False).apply((x,))[0]
