"""``spatial_pyramid_pooling_2d``: max pooling at several grid sizes, flattened and
concatenated into a fixed-length vector whatever the image size.

Layer 5: imports variable and ``functions`` (max pooling, reshape, concat).
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d


def spatial_pyramid_pooling_2d(x: Any, pyramid_height: int, pooling: str | None = None
                               ) -> variable.Variable:
    """Spatial pyramid pooling: level ``i`` max-pools ``x`` over a ``2**i`` by ``2**i`` grid
    (kernel ``ceil(h / 2**i)`` by ``ceil(w / 2**i)``, padded evenly to fit), and the levels'
    outputs are flattened and concatenated.

    Args:
        x: Float input of shape ``(n, c, h, w)``.
        pyramid_height: Number of levels.
        pooling: ``'max'`` (the only operation; Chainer 7 requires it to be given).

    Returns:
        A Variable of shape ``(n, c * sum(4**i for i < pyramid_height), 1, 1)``.

    Raises:
        ValueError: If ``pooling`` is not ``'max'``.

    See: `Spatial Pyramid Pooling in Deep Convolutional Networks for Visual Recognition
    <https://arxiv.org/abs/1406.4729>`_
    """
    height, width = x.shape[2:]
    levels = []
    for level in range(pyramid_height):
        bins = 2 ** level
        kernel_h = math.ceil(height / bins)
        kernel_w = math.ceil(width / bins)
        pad = ((kernel_h * bins - height) // 2, (kernel_w * bins - width) // 2)
        if pooling != "max":
            # compat: Chainer's wording (a message and the value as two arguments).
            raise ValueError("Unsupported pooling operation: ", pooling)
        pooled = max_pooling_2d(x, ksize=(kernel_h, kernel_w), stride=None, pad=pad,
                                cover_all=True)
        n, c, h, w = pooled.shape
        levels.append(reshape(pooled, (n, c * h * w, 1, 1)))
    return concat(levels)
