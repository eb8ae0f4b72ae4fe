"""``get_mnist`` and the MNIST-format machinery that Fashion-MNIST and Kuzushiji-MNIST share:
reading the gzipped IDX files, the ``train.npz``/``test.npz`` cache (keys ``x`` and ``y``) and
the image reshaping and scaling.

Layer 8: imports configuration, dataset.download and the datasets helpers.
"""

from __future__ import annotations

import gzip
import os
import struct
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat.configuration import get_dtype
from chainer_compat.dataset import download
from chainer_compat.datasets._image_preprocess import (
    ImageSet,
    check_ndim,
    load_npz,
    scale_pixels,
)
from chainer_compat.datasets.tuple_dataset import TupleDataset

__all__ = ["get_mnist"]

# Module-level so that tests (and users with a mirror) can point them elsewhere.
_URL_ROOT = "http://yann.lecun.com/exdb/mnist/"
_TRAIN_URLS = (_URL_ROOT + "train-images-idx3-ubyte.gz", _URL_ROOT + "train-labels-idx1-ubyte.gz")
_TEST_URLS = (_URL_ROOT + "t10k-images-idx3-ubyte.gz", _URL_ROOT + "t10k-labels-idx1-ubyte.gz")

_IMAGE_SIZE = 28
_PIXELS = _IMAGE_SIZE * _IMAGE_SIZE

def get_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1., dtype: Any = None,
              label_dtype: Any = numpy.int32,
              rgb_format: bool = False) -> tuple[ImageSet, ImageSet]:
    """Gets the MNIST dataset of hand-written digits, as its training and test sets.

    Each example is a 28x28 grey-scale image whose bytes are scaled to ``[0, scale]``. The raw
    files are downloaded once from ``yann.lecun.com`` and cached as ``train.npz`` and
    ``test.npz`` under ``get_dataset_directory('pfnet/chainer/mnist')``.

    Args:
        withlabel: Whether each example is an ``(image, label)`` tuple; when false the sets are
            plain image arrays.
        ndim: The number of dimensions of each image: 1 gives ``(784,)``, 2 gives
            ``(28, 28)`` and 3 gives ``(1, 28, 28)``.
        scale: The value the brightest pixel maps to.
        dtype: The image dtype; ``chainer.config.dtype`` when None.
        label_dtype: The label dtype.
        rgb_format: With ``ndim == 3``, repeat the grey channel three times so that each
            image is ``(3, 28, 28)``; ignored for other ``ndim``.

    Returns:
        ``(train, test)``: two :class:`~chainer.datasets.TupleDataset` objects when
        ``withlabel`` is true, else two image arrays.

    Raises:
        ValueError: If ``ndim`` is not 1, 2 or 3.
    """
    return _get_mnist_format("MNIST", "pfnet/chainer/mnist", _TRAIN_URLS, _TEST_URLS,
                             withlabel, ndim, scale, dtype, label_dtype, rgb_format)


def _get_mnist_format(dataset_name: str, directory: str, train_urls: Sequence[str],
                      test_urls: Sequence[str], withlabel: bool, ndim: int, scale: float,
                      dtype: Any, label_dtype: Any,
                      rgb_format: bool) -> tuple[ImageSet, ImageSet]:
    """The body of every MNIST-format getter; ``*_urls`` are (images URL, labels URL)."""
    # Chainer finds a bad ndim only after downloading; checking first saves the download.
    check_ndim(ndim, (1, 2, 3), dataset_name)
    image_dtype = get_dtype(dtype)
    sets = []
    for file_name, urls in (("train.npz", train_urls), ("test.npz", test_urls)):
        raw = _retrieve(directory, file_name, urls)
        sets.append(_preprocess(raw, withlabel, ndim, scale, image_dtype, label_dtype,
                                rgb_format))
    return sets[0], sets[1]


def _retrieve(directory: str, file_name: str,
              urls: Sequence[str]) -> dict[str, numpy.ndarray]:
    path = os.path.join(download.get_dataset_directory(directory), file_name)
    return download.cache_or_load_file(
        path, lambda temporary_path: _make_npz(temporary_path, urls), load_npz)


def _make_npz(path: str, urls: Sequence[str]) -> dict[str, numpy.ndarray]:
    images_url, labels_url = urls
    images, labels = _read_idx_pair(download.cached_download(images_url),
                                    download.cached_download(labels_url))
    # The cache layout is Chainer's (uint8 ``x`` of shape (N, 784), uint8 ``y`` of shape (N,))
    # so that a cache made by Chainer is read as is, and the other way round.
    numpy.savez_compressed(path, x=images, y=labels)
    return {"x": images, "y": labels}


def _read_idx_pair(images_path: str,
                   labels_path: str) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Reads a gzipped IDX image file (16-byte header) and its IDX label file (8-byte header)."""
    with gzip.open(images_path, "rb") as image_stream, \
            gzip.open(labels_path, "rb") as label_stream:
        image_header = image_stream.read(16)
        label_header = label_stream.read(8)
        if len(image_header) < 16 or len(label_header) < 8:
            raise RuntimeError(
                f"MNIST files must start with an IDX header (16 bytes for images, 8 for "
                f"labels), got {len(image_header)} and {len(label_header)} bytes. Delete "
                f"{images_path} and {labels_path} to download them again.")
        # compat: like Chainer, the magic numbers and the row and column sizes are not checked;
        # every image is read as 28x28 bytes.
        image_count = struct.unpack(">i", image_header[4:8])[0]
        label_count = struct.unpack(">i", label_header[4:8])[0]
        if image_count != label_count:
            raise RuntimeError(
                f"MNIST image and label files must hold the same number of examples, got "
                f"{image_count} images and {label_count} labels: wrong pair of MNIST images "
                f"and labels")
        image_bytes = image_stream.read(image_count * _PIXELS)
        label_bytes = label_stream.read(label_count)
    if len(image_bytes) != image_count * _PIXELS or len(label_bytes) != label_count:
        raise RuntimeError(
            f"MNIST files must hold {image_count} examples as their headers say, got "
            f"{len(image_bytes)} image bytes and {len(label_bytes)} label bytes. Delete "
            f"{images_path} and {labels_path} to download them again.")
    images = numpy.frombuffer(image_bytes, dtype=numpy.uint8).reshape(image_count, _PIXELS)
    labels = numpy.frombuffer(label_bytes, dtype=numpy.uint8)
    # frombuffer views read-only bytes; copies own writable memory like numpy.load's arrays.
    return images.copy(), labels.copy()


def _preprocess(raw: dict[str, numpy.ndarray], withlabel: bool, ndim: int, scale: float,
                image_dtype: numpy.dtype, label_dtype: Any,
                rgb_format: bool) -> ImageSet:
    images = raw["x"]
    if ndim == 2:
        images = images.reshape(-1, _IMAGE_SIZE, _IMAGE_SIZE)
    elif ndim == 3:
        images = images.reshape(-1, 1, _IMAGE_SIZE, _IMAGE_SIZE)
        if rgb_format:
            images = numpy.broadcast_to(images, (len(images), 3, _IMAGE_SIZE, _IMAGE_SIZE))
    images = scale_pixels(images, image_dtype, scale)
    if not withlabel:
        return images
    return TupleDataset(images, raw["y"].astype(label_dtype))
