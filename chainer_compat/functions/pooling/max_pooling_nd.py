"""``max_pooling_nd``: the maximum of each window over N spatial axes, its 1-D, 2-D and 3-D
forms, and its gradient nodes, which scatter to (and gather from) each maximum's position.

Layer 5: imports variable, function_node, ``utils.conv_nd`` and ``functions.pooling``
(``_pooling``, which does the array work, and ``pooling_nd``, the base class).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.pooling_nd import _PoolingND
from chainer_compat.utils.conv_nd import _check_spatial_ndim


class MaxPoolingND(_PoolingND):
    """Max pooling over ``ndim`` spatial axes. Use :func:`max_pooling_nd`.

    Attributes:
        indexes: After forward, the row-major flat position of each maximum within its
            window, an integer array of the output's shape.
    """

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = True, return_indices: bool = False) -> None:
        super().__init__(ndim, ksize, stride, pad, cover_all, return_indices)
        self.indexes: Any = None
        self._in_shape: tuple[int, ...] = ()

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        outs = self.window.pooled_size(x.shape[2:], self.cover_all)
        _pooling.check_output_size_nd(self.label, x.shape, outs)
        y, self.indexes = _pooling.max_of_windows(x, self.window, outs)
        self._in_shape = x.shape
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingNDGrad(self.window, self.indexes, self._in_shape).apply(grad_outputs)


class MaxPoolingNDGrad(FunctionNode):
    """Sends each output gradient to the input entry that was its window's maximum.

    Args:
        window: The pooling's window, 2-D or N-d.
        indexes: The flat position of each maximum within its window.
        in_shape: The shape of the pooled input.
    """

    def __init__(self, window: _pooling.AnyWindow, indexes: Any,
                 in_shape: tuple[int, ...]) -> None:
        self.window = window
        self.indexes = indexes
        self._in_shape = tuple(in_shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _pooling.scatter_at_indexes(gy, self.indexes, self.window, self._in_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingNDWithIndexes(self.window, self.indexes).apply(grad_outputs)


class MaxPoolingNDWithIndexes(FunctionNode):
    """Picks from each window the entry at the given flat position: the gradient of
    :class:`MaxPoolingNDGrad`.

    Args:
        window: The pooling's window, 2-D or N-d.
        indexes: The position to pick within each window.
    """

    def __init__(self, window: _pooling.AnyWindow, indexes: Any) -> None:
        self.window = window
        self.indexes = indexes
        self._in_shape: tuple[int, ...] = ()

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return _pooling.gather_at_indexes(x, self.indexes, self.window),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingNDGrad(self.window, self.indexes, self._in_shape).apply(grad_outputs)


def max_pooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Any:
    """N-dimensional max pooling: the largest entry of each ``ksize`` window.

    Args:
        x: Input Variable or array of shape ``(n, c, d_1, ..., d_N)``.
        ksize: Window size: an int or N ints.
        stride: Step between windows: an int, N ints, or None for ``ksize``.
        pad: Padding on each side of each spatial axis, which never wins the maximum.
        cover_all: Add a last window overhanging the end of an axis where needed so that
            every entry is in some window.
        return_indices: Also return where each maximum was found.

    Returns:
        A Variable of shape ``(n, c, l_1, ..., l_N)``; with ``return_indices``, the pair of it
        and an integer array of the row-major flat position of each maximum in its window.

    Raises:
        ValueError: If a window argument is out of range or of the wrong length (also raised
            as AssertionError when the output would be empty).
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a non-empty float array.
    """
    node = MaxPoolingND(len(x.shape[2:]), ksize, stride, pad, cover_all, return_indices)
    y: variable.Variable = node.apply((x,))[0]
    if return_indices:
        return y, node.indexes
    return y


def max_pooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Any:
    """1-D max pooling: :func:`max_pooling_nd` on input of shape ``(n, c, d)``.

    Raises:
        ValueError: If ``x`` does not have exactly one axis after the channel axis, and as
            :func:`max_pooling_nd` does.
    """
    _check_spatial_ndim(x, 1)
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Any:
    """Spatial max pooling: the largest entry of each ``ksize`` window of each plane.

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        ksize: Window size: an int ``k`` (meaning ``(k, k)``) or a pair.
        stride: Step between windows: an int, a pair, or None for ``ksize``.
        pad: Padding on each side of the planes, which never wins the maximum.
        cover_all: Add a last window overhanging the end of a plane where needed so that
            every entry is in some window (the output may grow by one).
        return_indices: Also return where each maximum was found.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``; with ``return_indices``, the pair of it
        and an integer array (on ``x``'s device) of the position of each maximum within its
        window, ``ky * kw + kx``.

    Raises:
        ValueError: If ``x`` does not have exactly two axes after the channel axis, or a
            window argument is out of range (also raised as AssertionError when the output
            would be empty, as Chainer raises).
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a non-empty float array.
    """
    _check_spatial_ndim(x, 2)
    # compat: Chainer 7's max_pooling_2d applies the N-d node (graphs and hooks see
    # MaxPoolingND); MaxPooling2D stays for code that builds it itself.
    node = MaxPoolingND(2, ksize, stride, pad, cover_all, return_indices)
    y: variable.Variable = node.apply((x,))[0]
    if return_indices:
        return y, node.indexes
    return y


def max_pooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Any:
    """3-D max pooling: :func:`max_pooling_nd` on input of shape ``(n, c, d_1, d_2, d_3)``.

    Raises:
        ValueError: If ``x`` does not have exactly three axes after the channel axis, and as
            :func:`max_pooling_nd` does.
    """
    _check_spatial_ndim(x, 3)
    return max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices)
