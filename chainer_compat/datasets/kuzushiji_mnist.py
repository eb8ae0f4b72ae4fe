"""``get_kuzushiji_mnist`` and ``get_kuzushiji_mnist_labels``: Kuzushiji-MNIST (KMNIST), ten
cursive Japanese characters in MNIST's file format, cached as ``train.npz``/``test.npz`` under
``pfnet/chainer/kuzushiji_mnist``.

Layer 8: imports chainer_compat.datasets.mnist.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.datasets._image_preprocess import ImageSet
from chainer_compat.datasets.mnist import _get_mnist_format

__all__ = ["get_kuzushiji_mnist", "get_kuzushiji_mnist_labels"]

# Module-level so that tests (and users with a mirror) can point them elsewhere.
_URL_ROOT = "http://codh.rois.ac.jp/kmnist/dataset/kmnist/"
_TRAIN_URLS = (_URL_ROOT + "train-images-idx3-ubyte.gz", _URL_ROOT + "train-labels-idx1-ubyte.gz")
_TEST_URLS = (_URL_ROOT + "t10k-images-idx3-ubyte.gz", _URL_ROOT + "t10k-labels-idx1-ubyte.gz")

# (romaji, hiragana) for labels 0 to 9.
_LABELS = (("o", "\u304a"), ("ki", "\u304d"), ("su", "\u3059"), ("tsu", "\u3064"),
           ("na", "\u306a"), ("ha", "\u306f"), ("ma", "\u307e"), ("ya", "\u3084"),
           ("re", "\u308c"), ("wo", "\u3092"))


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Returns the ten KMNIST classes, indexed by label, as ``(romaji, character)`` tuples.

    Compat:
        Chainer returns its module's own list; this returns a new list each call, so changing
        it changes nothing else.
    """
    return list(_LABELS)


def get_kuzushiji_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                        dtype: Any = None, label_dtype: Any = numpy.int32,
                        rgb_format: bool = False) -> tuple[ImageSet, ImageSet]:
    """Gets the Kuzushiji-MNIST dataset of cursive Japanese characters, as training and test sets.

    Each example is a 28x28 grey-scale image whose bytes are scaled to ``[0, scale]``; see
    :func:`get_kuzushiji_mnist_labels` for the characters. The raw files are downloaded once
    from ``codh.rois.ac.jp`` and cached as ``train.npz`` and ``test.npz`` under
    ``get_dataset_directory('pfnet/chainer/kuzushiji_mnist')``.

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
    return _get_mnist_format("Kuzushiji-MNIST", "pfnet/chainer/kuzushiji_mnist", _TRAIN_URLS,
                             _TEST_URLS, withlabel, ndim, scale, dtype, label_dtype,
                             rgb_format)
