"""``get_cifar10`` and ``get_cifar100``: the CIFAR image sets, read from the official Python
archives and cached as ``cifar-10.npz``/``cifar-100.npz`` (keys ``train_x``, ``train_y``,
``test_x``, ``test_y``) under ``pfnet/chainer/cifar``.

Layer 8: imports configuration, dataset.download and the datasets helpers.
"""

from __future__ import annotations

import os
import pickle
import tarfile
from typing import IO, Any

import numpy

from chainer_compat.configuration import get_dtype
from chainer_compat.dataset import download
from chainer_compat.datasets._image_preprocess import ImageSet, check_ndim, load_npz, scale_pixels
from chainer_compat.datasets.tuple_dataset import TupleDataset

__all__ = ["get_cifar10", "get_cifar100"]

# Module-level so that tests (and users with a mirror) can point them elsewhere.
_URLS = {
    "cifar-10": "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
    "cifar-100": "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
}

_PIXELS = 3 * 32 * 32

def get_cifar10(withlabel: bool = True, ndim: int = 3, scale: float = 1.,
                dtype: Any = None) -> tuple[ImageSet, ImageSet]:
    """Gets the CIFAR-10 dataset of 32x32 colour images in 10 classes, as training and test sets.

    Each pixel component (a byte) is scaled to ``[0, scale]``; labels are ``int32``. The
    archive is downloaded once from ``www.cs.toronto.edu`` and cached as ``cifar-10.npz``
    under ``get_dataset_directory('pfnet/chainer/cifar')``.

    Args:
        withlabel: Whether each example is an ``(image, label)`` tuple; when false the sets are
            plain image arrays.
        ndim: The number of dimensions of each image: 1 gives ``(3072,)`` and 3 gives
            ``(3, 32, 32)``.
        scale: The value the brightest component maps to.
        dtype: The image dtype; ``chainer.config.dtype`` when None.

    Returns:
        ``(train, test)``: two :class:`~chainer.datasets.TupleDataset` objects when
        ``withlabel`` is true, else two image arrays.

    Raises:
        ValueError: If ``ndim`` is not 1 or 3.
    """
    return _get_cifar("cifar-10", withlabel, ndim, scale, dtype)


def get_cifar100(withlabel: bool = True, ndim: int = 3, scale: float = 1.,
                 dtype: Any = None) -> tuple[ImageSet, ImageSet]:
    """Gets the CIFAR-100 dataset of 32x32 colour images in 100 classes, as training and test sets.

    Labels are the 100 fine labels, as ``int32``; otherwise as :func:`get_cifar10`. The archive
    is cached as ``cifar-100.npz`` under ``get_dataset_directory('pfnet/chainer/cifar')``.

    Args:
        withlabel: Whether each example is an ``(image, label)`` tuple; when false the sets are
            plain image arrays.
        ndim: The number of dimensions of each image: 1 gives ``(3072,)`` and 3 gives
            ``(3, 32, 32)``.
        scale: The value the brightest component maps to.
        dtype: The image dtype; ``chainer.config.dtype`` when None.

    Returns:
        ``(train, test)``: two :class:`~chainer.datasets.TupleDataset` objects when
        ``withlabel`` is true, else two image arrays.

    Raises:
        ValueError: If ``ndim`` is not 1 or 3.
    """
    return _get_cifar("cifar-100", withlabel, ndim, scale, dtype)


def _get_cifar(name: str, withlabel: bool, ndim: int, scale: float,
               dtype: Any) -> tuple[ImageSet, ImageSet]:
    # Chainer finds a bad ndim only after downloading; checking first saves the download.
    check_ndim(ndim, (1, 3), "CIFAR")
    image_dtype = get_dtype(dtype)
    directory = download.get_dataset_directory(os.path.join("pfnet", "chainer", "cifar"))
    raw = download.cache_or_load_file(
        os.path.join(directory, f"{name}.npz"),
        lambda temporary_path: _make_npz(temporary_path, name), load_npz)
    train = _preprocess(raw["train_x"], raw["train_y"], withlabel, ndim, scale, image_dtype)
    test = _preprocess(raw["test_x"], raw["test_y"], withlabel, ndim, scale, image_dtype)
    return train, test


def _make_npz(path: str, name: str) -> dict[str, numpy.ndarray]:
    archive_path = download.cached_download(_URLS[name])
    with tarfile.open(archive_path, "r:gz") as archive:
        if name == "cifar-10":
            train_batches = [_read_batch(archive, f"cifar-10-batches-py/data_batch_{number}",
                                         "labels") for number in range(1, 6)]
            train_x = numpy.concatenate([images for images, _ in train_batches])
            train_y = numpy.concatenate([labels for _, labels in train_batches])
            test_x, test_y = _read_batch(archive, "cifar-10-batches-py/test_batch", "labels")
        else:
            train_x, train_y = _read_batch(archive, "cifar-100-python/train", "fine_labels")
            test_x, test_y = _read_batch(archive, "cifar-100-python/test", "fine_labels")
    # Chainer's cache layout (uint8 images (N, 3072), uint8 labels (N,)), so a cache made by
    # Chainer is read as is, and the other way round.
    numpy.savez_compressed(path, train_x=train_x, train_y=train_y, test_x=test_x, test_y=test_y)
    return {"train_x": train_x, "train_y": train_y, "test_x": test_x, "test_y": test_y}


def _read_batch(archive: tarfile.TarFile, member: str,
                label_key: str) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Reads one pickled batch of the archive as (uint8 images (N, 3072), uint8 labels (N,))."""
    stream = archive.extractfile(member)
    if stream is None:
        raise RuntimeError(
            f"CIFAR archive member {member!r} must be a regular file, got another kind of "
            f"member. Delete {archive.name!r} from the download cache to fetch it again.")
    with stream:
        batch = _unpickle(stream)
    images = numpy.asarray(batch["data"], dtype=numpy.uint8).reshape(-1, _PIXELS)
    labels = numpy.asarray(batch[label_key], dtype=numpy.uint8)
    return images, labels


def _unpickle(stream: IO[bytes]) -> Any:
    # The batches were pickled by Python 2; latin-1 maps their byte strings one to one. Like
    # Chainer, this trusts the archive downloaded from the dataset's official address.
    return pickle.load(stream, encoding="latin-1")


def _preprocess(images: numpy.ndarray, labels: numpy.ndarray, withlabel: bool, ndim: int,
                scale: float, image_dtype: numpy.dtype) -> ImageSet:
    shape = (-1, _PIXELS) if ndim == 1 else (-1, 3, 32, 32)
    images = scale_pixels(images.reshape(shape), image_dtype, scale)
    if not withlabel:
        return images
    # compat: CIFAR labels are always int32; Chainer gives these getters no label_dtype.
    return TupleDataset(images, labels.astype(numpy.int32))
