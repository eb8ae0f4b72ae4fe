"""``chainer_compat.datasets``: dataset classes that need no download: tuples and dicts of
datasets, subsets and splits, transformed and concatenated datasets.

Layer 8: re-exports its submodules.
"""

from __future__ import annotations

from chainer_compat.datasets.concatenated_dataset import ConcatenatedDataset
from chainer_compat.datasets.dict_dataset import DictDataset
from chainer_compat.datasets.sub_dataset import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from chainer_compat.datasets.transform_dataset import TransformDataset
from chainer_compat.datasets.tuple_dataset import TupleDataset

__all__ = [
    "ConcatenatedDataset",
    "DictDataset",
    "SubDataset",
    "TransformDataset",
    "TupleDataset",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
    "split_dataset",
    "split_dataset_n",
    "split_dataset_n_random",
    "split_dataset_random",
]
