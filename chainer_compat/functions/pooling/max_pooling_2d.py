"""``MaxPooling2D``, the max pooling node of 2-D planes, and its gradient nodes, which scatter to
(and gather from) each maximum's position and so differentiate each other; ``max_pooling_2d``
itself lives in ``max_pooling_nd`` as in Chainer, and is re-exported here.

Layer 5: imports function_node and ``functions.pooling`` (``_pooling``, ``pooling_2d`` and
``max_pooling_nd``, whose gradient nodes these specialize).
"""

from __future__ import annotations

from typing import Any

from chainer_compat.functions.pooling import _pooling
from chainer_compat.functions.pooling.max_pooling_nd import (
    MaxPoolingNDGrad,
    MaxPoolingNDWithIndexes,
    max_pooling_2d,
)
from chainer_compat.functions.pooling.pooling_2d import Pooling2D
from chainer_compat.utils import type_check

__all__ = ["MaxPooling2D", "MaxPooling2DGrad", "MaxPoolingWithIndexes", "max_pooling_2d"]


class MaxPooling2D(Pooling2D):
    """Max pooling of ``(n, c, h, w)`` planes. Use :func:`max_pooling_2d`.

    Attributes:
        indexes: After forward, the position of each maximum within its window
            (``ky * kw + kx``), an integer array of the output's shape.
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                 return_indices: bool = False) -> None:
        super().__init__(ksize, stride, pad, cover_all, return_indices)
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
        # compat: Chainer's 2-D max pooling checks its output as the N-d one does.
        _pooling.check_output_size_nd(self.label, x.shape, (out_h, out_w))
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

