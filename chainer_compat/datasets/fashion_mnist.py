"""``get_fashion_mnist`` and ``get_fashion_mnist_labels``: Zalando's Fashion-MNIST, in MNIST's
file format, cached as ``train.npz``/``test.npz`` under ``pfnet/chainer/fashion-mnist``.

Layer 8: imports chainer_compat.datasets.mnist.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.datasets._image_preprocess import ImageSet
from chainer_compat.datasets.mnist import _get_mnist_format

__all__ = ["get_fashion_mnist", "get_fashion_mnist_labels"]

# Module-level so that tests (and users with a mirror) can point them elsewhere.
_URL_ROOT = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
_TRAIN_URLS = (_URL_ROOT + "train-images-idx3-ubyte.gz", _URL_ROOT + "train-labels-idx1-ubyte.gz")
_TEST_URLS = (_URL_ROOT + "t10k-images-idx3-ubyte.gz", _URL_ROOT + "t10k-labels-idx1-ubyte.gz")

_LABELS = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")


def get_fashion_mnist_labels() -> list[str]:
    """Returns the names of the ten Fashion-MNIST classes, indexed by label (a new list)."""
    return list(_LABELS)


def get_fashion_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                      dtype: Any = None, label_dtype: Any = numpy.int32,
                      rgb_format: bool = False) -> tuple[ImageSet, ImageSet]:
    """Gets the Fashion-MNIST dataset of clothing images, as its training and test sets.

    Each example is a 28x28 grey-scale image whose bytes are scaled to ``[0, scale]``; see
    :func:`get_fashion_mnist_labels` for the class names. The raw files are downloaded once and
    cached as ``train.npz`` and ``test.npz`` under
    ``get_dataset_directory('pfnet/chainer/fashion-mnist')``.

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
    return _get_mnist_format("Fashion-MNIST", "pfnet/chainer/fashion-mnist", _TRAIN_URLS,
                             _TEST_URLS, withlabel, ndim, scale, dtype, label_dtype,
                             rgb_format)
