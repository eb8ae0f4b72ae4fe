"""Steps shared by the image dataset getters: reading a cached npz into memory, checking
``ndim`` and scaling ``uint8`` pixels to ``[0, scale]``.

Layer 8: imports numpy and chainer_compat.datasets.tuple_dataset.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy

from chainer_compat.datasets.tuple_dataset import TupleDataset

__all__ = ["ImageSet", "check_ndim", "load_npz", "scale_pixels"]

# What an image getter returns per split: images with labels, or the bare image array.
ImageSet = TupleDataset | numpy.ndarray


def load_npz(path: str) -> dict[str, numpy.ndarray]:
    """Reads every array of the npz file at ``path`` into a dict and closes the file."""
    with numpy.load(path) as archive:
        return {key: archive[key] for key in archive.files}


def check_ndim(ndim: Any, allowed: Collection[int], dataset_name: str) -> None:
    """Raises ``ValueError`` unless ``ndim`` is one of ``allowed``.

    Args:
        ndim: The ``ndim`` argument a getter received.
        allowed: The numbers of dimensions the dataset's images can have.
        dataset_name: The dataset's name, for the message.

    Raises:
        ValueError: If ``ndim`` is not one of ``allowed``.
    """
    if ndim not in allowed:
        choices = ", ".join(str(value) for value in sorted(allowed))
        raise ValueError(
            f"ndim must be one of {choices} for the {dataset_name} dataset, got {ndim!r}: "
            f"invalid ndim for {dataset_name} dataset")


def scale_pixels(images: numpy.ndarray, dtype: numpy.dtype, scale: float) -> numpy.ndarray:
    """Returns ``images`` (bytes in ``[0, 255]``) cast to ``dtype`` and scaled to ``[0, scale]``.

    Args:
        images: The raw pixel array.
        dtype: The dtype of the result.
        scale: The value the brightest pixel (255) maps to.

    Returns:
        A new array; ``images`` is left unchanged.
    """
    scaled = images.astype(dtype)
    # compat: scaled in place as Chainer does, so an integer dtype raises NumPy's casting
    # error instead of silently truncating every pixel to 0.
    scaled *= scale / 255.0
    return scaled

