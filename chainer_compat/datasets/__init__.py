"""``chainer_compat.datasets``: tuples and dicts of datasets, subsets and splits, transformed
and concatenated datasets, and the getters of MNIST, Fashion-MNIST, KMNIST, CIFAR, SVHN and PTB.

Layer 8: re-exports its submodules.
"""

from __future__ import annotations

from chainer_compat.datasets.cifar import get_cifar10, get_cifar100
from chainer_compat.datasets.concatenated_dataset import ConcatenatedDataset
from chainer_compat.datasets.dict_dataset import DictDataset
from chainer_compat.datasets.fashion_mnist import get_fashion_mnist, get_fashion_mnist_labels
from chainer_compat.datasets.image_dataset import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)
from chainer_compat.datasets.kuzushiji_mnist import get_kuzushiji_mnist, get_kuzushiji_mnist_labels
from chainer_compat.datasets.mnist import get_mnist
from chainer_compat.datasets.pickle_dataset import (
    PickleDataset,
    PickleDatasetWriter,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from chainer_compat.datasets.ptb import get_ptb_words, get_ptb_words_vocabulary
from chainer_compat.datasets.sub_dataset import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from chainer_compat.datasets.svhn import get_svhn
from chainer_compat.datasets.text_dataset import TextDataset
from chainer_compat.datasets.transform_dataset import TransformDataset
from chainer_compat.datasets.tuple_dataset import TupleDataset

__all__ = [
    "ConcatenatedDataset", "DictDataset", "ImageDataset", "LabeledImageDataset",
    "LabeledZippedImageDataset", "MultiZippedImageDataset", "PickleDataset", "PickleDatasetWriter",
    "SubDataset", "TextDataset", "TransformDataset", "TupleDataset", "ZippedImageDataset",
    "get_cifar10", "get_cifar100", "get_cross_validation_datasets",
    "get_cross_validation_datasets_random", "get_fashion_mnist", "get_fashion_mnist_labels",
    "get_kuzushiji_mnist", "get_kuzushiji_mnist_labels", "get_mnist", "get_ptb_words",
    "get_ptb_words_vocabulary", "get_svhn", "open_pickle_dataset", "open_pickle_dataset_writer",
    "split_dataset", "split_dataset_n", "split_dataset_n_random", "split_dataset_random",
]
