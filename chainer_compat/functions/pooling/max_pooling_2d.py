"""``max_pooling_2d``: the maximum of each window of 2-D planes, and its gradient nodes, which
scatter to (and gather from) each maximum's position and so differentiate each other.

Layer 5: imports backend, variable, function_node, type_check and ``functions.pooling``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.utils import type_check


class MaxPooling2D(FunctionNode):
    """Max pooling of ``(n, c, h, w)`` planes. Use :func:`max_pooling_2d`.

    Attributes:
        indexes: After forward, the position of each maximum within its window
            (``ky * kw + kx``), an integer array of the output's shape.
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                 return_indices: bool = False) -> None:
        self.window = _pooling.Window(ksize, stride, pad)
        self.cover_all = cover_all
        self.return_indices = return_indices
        self.indexes: Any = None
        self._in_shape: tuple[int, ...] = ()

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(
            in_types.size() == 1,
            in_types[0].dtype.kind == "f",
            in_types[0].ndim == 4,
            in_types[0].size > 0,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        window = self.window
        out_h, out_w = window.pooled_size(x.shape[2], x.shape[3], self.cover_all)
        _pooling.check_output_size(self.label, x.shape, out_h, out_w)
        padded = _pooling.pad_planes(x, window, out_h, out_w, -float("inf"))
        # (n, c, kh * kw, out_h, out_w): every window position side by side.
        candidates = xp.stack(
            [padded[_pooling.window_slice(ky, kx, window, out_h, out_w)]
             for _, ky, kx in window.positions()], axis=2)
        # max is cheaper than gathering at argmax; both take the first NaN, as Chainer does.
        y = candidates.max(axis=2)
        self.indexes = candidates.argmax(axis=2)
        self._in_shape = x.shape
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPooling2DGrad(self.window, self.indexes, self._in_shape).apply(grad_outputs)


class MaxPooling2DGrad(FunctionNode):
    """Sends each output gradient to the input entry that was its window's maximum.

    Args:
        window: The pooling's window.
        indexes: The position of each maximum within its window.
        in_shape: The shape of the pooled input.
    """

    def __init__(self, window: _pooling.Window, indexes: Any, in_shape: tuple[int, ...]) -> None:
        self.window = window
        self.indexes = indexes
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        window = self.window
        n, c, h, w = self._in_shape
        out_h, out_w = gy.shape[2:]
        height = max(window.ph + h, window.sy * (out_h - 1) + window.kh)
        width = max(window.pw + w, window.sx * (out_w - 1) + window.kw)
        padded = xp.zeros((n, c, height, width), dtype=gy.dtype)
        for index, ky, kx in window.positions():
            padded[_pooling.window_slice(ky, kx, window, out_h, out_w)] += xp.where(
                self.indexes == index, gy, gy.dtype.type(0))
        gx = padded[:, :, window.ph:window.ph + h, window.pw:window.pw + w]
        return xp.ascontiguousarray(gx),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingWithIndexes(self.window, self.indexes).apply(grad_outputs)


class MaxPoolingWithIndexes(FunctionNode):
    """Picks from each window the entry at the given position: the gradient of
    :class:`MaxPooling2DGrad`.

    Args:
        window: The pooling's window.
        indexes: The position to pick within each window.
    """

    def __init__(self, window: _pooling.Window, indexes: Any) -> None:
        self.window = window
        self.indexes = indexes
        self._in_shape: tuple[int, ...] = ()

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        window = self.window
        out_h, out_w = self.indexes.shape[2:]
        padded = _pooling.pad_planes(x, window, out_h, out_w, 0)
        y = xp.zeros(self.indexes.shape, dtype=x.dtype)
        for index, ky, kx in window.positions():
            part = padded[_pooling.window_slice(ky, kx, window, out_h, out_w)]
            y = xp.where(self.indexes == index, part, y)
        self._in_shape = x.shape
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPooling2DGrad(self.window, self.indexes, self._in_shape).apply(grad_outputs)


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
    ndim = len(x.shape[2:])
    if ndim != 2:
        raise ValueError(
            "The number of dimensions under channel dimension of the input 'x' should be 2. "
            f"But the actual ndim was {ndim}.")
    node = MaxPooling2D(ksize, stride, pad, cover_all, return_indices)
    y: variable.Variable = node.apply((x,))[0]
    if return_indices:
        return y, node.indexes
    return y
