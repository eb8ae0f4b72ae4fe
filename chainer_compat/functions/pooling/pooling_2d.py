"""``Pooling2D``: the base class of the poolings over 2-D planes, at Chainer's module path, for
code that subclasses it or reads its window attributes.

Layer 5: imports function_node and ``functions.pooling._pooling``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.pooling import _pooling


class Pooling2D(FunctionNode):
    """Base of the poolings of ``(n, c, h, w)`` planes: holds the window and checks the input.

    Subclasses implement ``forward`` (or ``forward_cpu``/``forward_gpu``) and ``backward``,
    reading the window from the attributes below.

    Compat: Chainer's base also runs cuDNN pooling on the GPU for subclasses that name a pool
    mode; this base has no device code of its own.

    Args:
        ksize: Window size: an int or a pair ``(kh, kw)``.
        stride: Step between windows: an int, a pair, or None for ``ksize``.
        pad: Padding on each side: an int or a pair.
        cover_all: Whether the output covers every input entry, adding a window that
            overhangs the end where needed.
        return_indices: Whether a max pooling also returns where each maximum is.

    Attributes:
        kh, kw: Window height and width.
        sy, sx: Vertical and horizontal stride.
        ph, pw: Vertical and horizontal padding.
        cover_all: As given.
        return_indices: As given.

    Raises:
        ValueError: If a window size or stride is not positive or a padding is negative.
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                 return_indices: bool = False) -> None:
        self.window = _pooling.Window(ksize, stride, pad)
        self.kh, self.kw = self.window.ksize
        self.sy, self.sx = self.window.stride
        self.ph, self.pw = self.window.pad
        self.cover_all = cover_all
        self.return_indices = return_indices

    def check_type_forward(self, in_types: Any) -> None:
        _pooling.check_one_float_4d_input(in_types)
