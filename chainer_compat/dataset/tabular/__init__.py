"""``chainer_compat.dataset.tabular``: tabular datasets (rows with named columns) built from
lists, arrays and callables with ``from_data``, and ``DelegateDataset`` to subclass them.

Layer 8: re-exports its submodules; ``TabularDataset`` itself is ``chainer.dataset``'s.
"""

from __future__ import annotations

# The private view modules are attributes of the package in Chainer too.
from chainer_compat.dataset.tabular import (  # noqa: F401
    _asmode,
    _concat,
    _join,
    _slice,
    _transform,
    _with_converter,
    delegate_dataset,
    tabular_dataset,
)
from chainer_compat.dataset.tabular.delegate_dataset import DelegateDataset
from chainer_compat.dataset.tabular.from_data import from_data

__all__ = ["DelegateDataset", "delegate_dataset", "from_data", "tabular_dataset"]
