"""``chainer_compat.dataset``: the dataset protocol and its helpers: converters
(``concat_examples``), ``DatasetMixin``, the ``Iterator`` base class and the download cache.

Layer 8: re-exports its submodules.
"""

from __future__ import annotations

from chainer_compat.dataset import convert, dataset_mixin, download, iterator, tabular
from chainer_compat.dataset.convert import (
    ConcatWithAsyncTransfer,
    Converter,
    concat_examples,
    converter,
    to_device,
)
from chainer_compat.dataset.dataset_mixin import DatasetMixin
from chainer_compat.dataset.download import (
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)
from chainer_compat.dataset.iterator import Iterator
from chainer_compat.dataset.tabular.tabular_dataset import TabularDataset

__all__ = [
    "ConcatWithAsyncTransfer", "Converter", "DatasetMixin", "Iterator", "TabularDataset",
    "cache_or_load_file", "cached_download", "concat_examples", "convert", "converter",
    "dataset_mixin", "download", "get_dataset_directory", "get_dataset_root", "iterator",
    "set_dataset_root", "tabular", "to_device",
]
