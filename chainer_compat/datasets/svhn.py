"""``get_svhn``: the Street View House Numbers digits (cropped 32x32 format), read from the
official MATLAB files with SciPy and cached as ``train.npz``/``test.npz``/``extra.npz`` (keys
``x`` and ``y``) under ``pfnet/chainer/svhn``.

Layer 8: imports configuration, dataset.download and the datasets helpers; scipy only when a
``.mat`` file has to be read.
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import Any

import numpy

from chainer_compat.configuration import get_dtype
from chainer_compat.dataset import download
from chainer_compat.datasets._image_preprocess import ImageSet, load_npz, scale_pixels
from chainer_compat.datasets.tuple_dataset import TupleDataset

__all__ = ["get_svhn"]

# Module-level so that tests (and users with a mirror) can point them elsewhere.
_URL_ROOT = "http://ufldl.stanford.edu/housenumbers/"
_TRAIN_URL = _URL_ROOT + "train_32x32.mat"
_TEST_URL = _URL_ROOT + "test_32x32.mat"
_EXTRA_URL = _URL_ROOT + "extra_32x32.mat"

def get_svhn(withlabel: bool = True, scale: float = 1., dtype: Any = None,
             label_dtype: Any = numpy.int32, add_extra: bool = False) -> tuple[ImageSet, ...]:
    """Gets the SVHN dataset of house-number digits, as its training and test sets.

    Each example is a ``(3, 32, 32)`` colour image whose components are scaled to
    ``[0, scale]``. Labels are the digits 0 to 9 (the files' label 10 for the digit 0 becomes
    0). The files are downloaded once from ``ufldl.stanford.edu`` and cached under
    ``get_dataset_directory('pfnet/chainer/svhn')``; reading them needs SciPy.

    Args:
        withlabel: Whether each example is an ``(image, label)`` tuple; when false the sets are
            plain image arrays.
        scale: The value the brightest component maps to.
        dtype: The image dtype; ``chainer.config.dtype`` when None.
        label_dtype: The label dtype.
        add_extra: Whether to return the extra training set as a third set.

    Returns:
        ``(train, test)``, or ``(train, test, extra)`` when ``add_extra`` is true: each a
        :class:`~chainer.datasets.TupleDataset` when ``withlabel`` is true, else an image array.

    Raises:
        RuntimeError: If a file has to be read and SciPy is not installed.

    Compat:
        Chainer raises the SciPy error on every call; this raises it only when a ``.mat`` file
        has to be read, so an existing cache works without SciPy.
    """
    image_dtype = get_dtype(dtype)
    parts = [("train.npz", _TRAIN_URL), ("test.npz", _TEST_URL)]
    if add_extra:
        parts.append(("extra.npz", _EXTRA_URL))
    directory = download.get_dataset_directory("pfnet/chainer/svhn")
    sets = []
    for file_name, url in parts:
        raw = download.cache_or_load_file(
            os.path.join(directory, file_name), functools.partial(_make_npz, url=url), load_npz)
        sets.append(_preprocess(raw, withlabel, scale, image_dtype, label_dtype))
    return tuple(sets)


def _make_npz(path: str, url: str) -> dict[str, numpy.ndarray]:
    try:
        # Imported here: SciPy is needed only to read the .mat files, not their cache.
        scipy_io = importlib.import_module("scipy.io")
    except ImportError as error:
        raise RuntimeError(
            f"SciPy must be installed to read the SVHN .mat files, got {error!r}: "
            f"SciPy is not available. Install it with `pip install scipy`.") from error
    mat = scipy_io.loadmat(download.cached_download(url))
    # Chainer's cache layout: ``x`` uint8 (32, 32, 3, N) and ``y`` uint8 (N, 1), as in the file.
    images = mat["X"].astype(numpy.uint8)
    labels = mat["y"].astype(numpy.uint8)
    numpy.savez_compressed(path, x=images, y=labels)
    return {"x": images, "y": labels}


def _preprocess(raw: dict[str, numpy.ndarray], withlabel: bool, scale: float,
                image_dtype: numpy.dtype, label_dtype: Any) -> ImageSet:
    # (height, width, channel, example) to (example, channel, height, width).
    images = scale_pixels(raw["x"].transpose(3, 2, 0, 1), image_dtype, scale)
    if not withlabel:
        return images
    labels = raw["y"].astype(label_dtype).flatten()
    # The files label the digit 0 as 10.
    labels[labels == 10] = 0
    return TupleDataset(images, labels)
