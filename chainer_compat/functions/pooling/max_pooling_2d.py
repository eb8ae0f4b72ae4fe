"""``max_pooling_2d``: the maximum of each window of 2-D planes, and its gradient nodes, which
scatter to (and gather from) each maximum's position and so differentiate each other.

Layer 5: imports variable, function_node, type_check, ``utils.conv_nd`` and ``functions.pooling``
(``_pooling``, which does the array work, and ``max_pooling_nd``, whose gradient nodes these
specialize).
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.max_pooling_nd import (
    MaxPoolingND,
    MaxPoolingNDGrad,
    MaxPoolingNDWithIndexes,
)
from chainer_compat.utils import type_check
from chainer_compat.utils.conv_nd import _check_spatial_ndim


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
        out_h, out_w = self.window.pooled_size(x.shape[2], x.shape[3], self.cover_all)
        _pooling.check_output_size(self.label, x.shape, out_h, out_w)
        y, self.indexes = _pooling.max_of_windows(x, self.window, (out_h, out_w))
        self._in_shape = x.shape
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPooling2DGrad(self.window, self.indexes, self._in_shape).apply(grad_outputs)


class MaxPooling2DGrad(MaxPoolingNDGrad):
    """Sends each output gradient to the input entry that was its window's maximum: the
    2-D :class:`MaxPoolingNDGrad` (same arguments, a 2-D window), whose gradient is
    :class:`MaxPoolingWithIndexes`."""

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingWithIndexes(self.window, self.indexes).apply(grad_outputs)


class MaxPoolingWithIndexes(MaxPoolingNDWithIndexes):
    """Picks from each window the entry at the given position: the 2-D
    :class:`MaxPoolingNDWithIndexes` (same arguments, a 2-D window), the gradient of
    :class:`MaxPooling2DGrad`."""

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
    _check_spatial_ndim(x, 2)
    # compat: Chainer 7's max_pooling_2d applies the N-d node (graphs and hooks see
    # MaxPoolingND); MaxPooling2D stays for code that builds it itself.
    node = MaxPoolingND(2, ksize, stride, pad, cover_all, return_indices)
    y: variable.Variable = node.apply((x,))[0]
    if return_indices:
        return y, node.indexes
    return y
