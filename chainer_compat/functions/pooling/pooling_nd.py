"""``_PoolingND``: the base class of the poolings over N spatial axes, at Chainer's module path
and under Chainer's name, for code that subclasses it or reads its window attributes.

Layer 5: imports function_node, type_check and ``functions.pooling._pooling``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling
from chainer_compat.utils import type_check


class _PoolingND(FunctionNode):
    """Base of the poolings over ``ndim`` spatial axes: holds the window and checks the input.

    Subclasses implement ``forward`` (or ``forward_cpu``/``forward_gpu``) and ``backward``,
    reading the window from the attributes below. (Chainer names this base with a leading
    underscore; code that subclasses it imports that name.)

    Compat: Chainer's base also runs cuDNN pooling on the GPU for subclasses that name a pool
    mode; this base has no device code of its own, so :attr:`is_cudnn_used` is False.

    Args:
        ndim: Number of spatial axes.
        ksize: Window size: an int or ``ndim`` ints.
        stride: Step between windows: an int, ``ndim`` ints, or None for ``ksize``.
        pad: Padding on each side: an int or ``ndim`` ints.
        cover_all: Whether the output covers every input entry, adding a window that
            overhangs the end where needed.
        return_indices: Whether a max pooling also returns where each maximum is.

    Attributes:
        ndim: As given.
        ksize, stride, pad: Tuples of ``ndim`` ints.
        cover_all: As given.
        return_indices: As given.

    Raises:
        ValueError: If ``ndim`` is below 1, or a window argument has the wrong length or is
            out of range.
    """

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = True, return_indices: bool = False) -> None:
        self.window = _pooling.WindowND(ndim, ksize, stride, pad)
        self.ndim = ndim
        self.ksize, self.stride, self.pad = self.window.arguments()
        self.cover_all = cover_all
        self.return_indices = return_indices

    @property
    def is_cudnn_used(self) -> bool:
        """Whether forward ran cuDNN: never here (see the class's Compat note)."""
        return False

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(
            in_types.size() == 1,
            in_types[0].dtype.kind == "f",
            in_types[0].ndim == 2 + self.ndim,
            in_types[0].size > 0,
        )
