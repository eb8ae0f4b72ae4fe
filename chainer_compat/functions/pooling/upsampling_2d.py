"""``upsampling_2d``: the inverse of ``max_pooling_2d`` given its indexes, placing each entry at
its window's recorded maximum position.

Layer 5: imports variable, function_node, type_check and ``functions.pooling``; the scatter and
gather by index are those of ``max_pooling_2d``'s gradient nodes, so they differentiate each
other.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.max_pooling_2d import MaxPoolingWithIndexes
from chainer_compat.functions.pooling.pooling_2d import Pooling2D
from chainer_compat.utils import type_check
from chainer_compat.utils.conv import _size_tuple


class Upsampling2D(Pooling2D):
    """Upsampling of ``(n, c, h, w)`` planes by max-pooling indexes. Use
    :func:`upsampling_2d`."""

    def __init__(self, indexes: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                 outsize: Any = None, cover_all: bool = True) -> None:
        super().__init__(ksize, stride, pad, cover_all)
        self._settings = (ksize, stride, pad, cover_all)
        self.indexes = indexes
        self.outh: int | None
        self.outw: int | None
        if outsize is None:
            self.outh, self.outw = None, None
        else:
            self.outh, self.outw = _size_tuple(outsize, 2, "outsize", allow_none=True)

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() == 1)
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            x_type.shape == self.indexes.shape,
        )
        _pooling.expect_pooled_back(x_type, self.window, self.outh, self.outw, self.cover_all)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        _check_indexes(self.indexes, self.window)
        self.outh, self.outw = _pooling.unpooled_size(self.label, x.shape, self.window,
                                                      self.outh, self.outw, self.cover_all)
        # Scattering by index is exactly max pooling's gradient, with x as the output grad.
        out_shape = x.shape[:2] + (self.outh, self.outw)
        return _pooling.scatter_at_indexes(x, self.indexes, self.window, out_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Upsampling2DGrad(self).apply(grad_outputs)


def _check_indexes(indexes: Any, window: _pooling.Window) -> None:
    """Checks that ``indexes`` are integers, each a position of the window.

    Raises:
        IndexError: If they are not (Chainer's type: its scatter indexes with them).
    """
    if indexes.dtype.kind not in "iu":
        raise IndexError(
            f"indexes of upsampling_2d must be an integer array, got dtype {indexes.dtype}: "
            "pass the indexes max_pooling_2d returns with return_indices=True")
    if indexes.size == 0:
        return
    low, high = int(indexes.min()), int(indexes.max())
    if low < 0 or high >= window.area:
        bad = low if low < 0 else high
        raise IndexError(
            f"indexes of upsampling_2d must be in [0, {window.area}) (a position in the "
            f"{window.kh}x{window.kw} window), got {bad}: pass the indexes max_pooling_2d "
            "returns with return_indices=True and the same ksize")


class Upsampling2DGrad(MaxPoolingWithIndexes):
    """The gradient of :class:`Upsampling2D`: each window's entry at its index, as max
    pooling's gradient of its gradient picks it; its own gradient is an Upsampling2D."""

    def __init__(self, upsampling: Upsampling2D) -> None:
        super().__init__(upsampling.window, upsampling.indexes)
        self._upsampling = upsampling

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        upsampling = self._upsampling
        ksize, stride, pad, cover_all = upsampling._settings
        return Upsampling2D(self.indexes, ksize, stride, pad,
                            (upsampling.outh, upsampling.outw), cover_all).apply(grad_outputs)


def upsampling_2d(x: Any, indexes: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                  outsize: Any = None, cover_all: bool = True) -> variable.Variable:
    """Upsampling by max-pooling indexes: each entry of ``x`` goes to the position in its
    window that ``indexes`` records; every other output entry is zero (overlapping windows
    add).

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        indexes: Integer array of ``x``'s shape: the flat position ``ky * kw + kx`` within
            each window, as :func:`max_pooling_2d` returns with ``return_indices=True``.
        ksize: Window size: an int or a pair.
        stride: Step between windows: an int, a pair, or None for ``ksize``.
        pad: Cropped from each side of the result.
        outsize: ``(out_h, out_w)`` of the result, or None for the smallest size that max
            pooling with the same arguments pools back to ``(h, w)``.
        cover_all: Whether that pooling used ``cover_all``.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)``.

    Raises:
        ValueError: If a window argument is out of range.
        IndexError: If an index is not a position in the window.
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array of four
            dimensions of ``indexes``' shape, or pooling ``outsize`` would not give ``(h, w)``.
    """
    y: variable.Variable = Upsampling2D(indexes, ksize, stride, pad, outsize,
                                        cover_all).apply((x,))[0]
    return y
