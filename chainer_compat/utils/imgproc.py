"""``chainer.utils.imgproc``: ``oversample``, the ten-crop (corners, center and their mirrors)
used to evaluate image classifiers.

Layer 1: imports ``backend``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat import backend

__all__ = ["oversample"]


def oversample(images: Sequence[Any], crop_dims: Sequence[int]) -> Any:
    """Crops each image at its four corners and its center, and adds their mirror images.

    For each image in order, the result holds the top-left, top-right, bottom-left,
    bottom-right and center crops, then the same five crops flipped left to right. The center
    crop starts at ``int(H / 2 - h / 2)``, ``int(W / 2 - w / 2)``.

    Args:
        images: Images of one shape ``(C, H, W)``: a sequence of arrays, or one 4-d array.
        crop_dims: The crop size ``(h, w)``; at most ``(H, W)``.

    Returns:
        An array of shape ``(10 * len(images), C, h, w)`` with the dtype of ``images[0]``, from
        the array module of ``images[0]``.

    Raises:
        ValueError: If the crop is larger than the images.
    """
    first = images[0]
    channels, source_height, source_width = first.shape
    height, width = (int(size) for size in crop_dims)
    if not (0 <= height <= source_height and 0 <= width <= source_width):
        raise ValueError(
            f"crop_dims must fit in the images ({source_height}, {source_width}), got "
            f"({height}, {width}); crop to at most the image size")
    # Float arithmetic, truncated, as Chainer computes the center.
    center_top = int(source_height / 2.0 - height / 2.0)
    center_left = int(source_width / 2.0 - width / 2.0)
    corners = [(0, 0), (0, source_width - width), (source_height - height, 0),
               (source_height - height, source_width - width), (center_top, center_left)]
    xp = backend.get_array_module(first)
    crops = xp.empty((10 * len(images), channels, height, width), dtype=first.dtype)
    for index, image in enumerate(images):
        base = 10 * index
        for offset, (top, left) in enumerate(corners):
            crops[base + offset] = image[:, top:top + height, left:left + width]
        crops[base + 5:base + 10] = crops[base:base + 5, :, :, ::-1]
    return crops
