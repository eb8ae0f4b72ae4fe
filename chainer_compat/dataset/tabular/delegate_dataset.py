"""``DelegateDataset``: a ``TabularDataset`` that forwards to another one, as a base class for
datasets built from ``from_data`` or other tabular views.

Layer 8: imports chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset

__all__ = ["DelegateDataset"]


class DelegateDataset(TabularDataset):
    """A tabular dataset that reads its length, keys, mode and rows from ``dataset``.

    Subclass it to give a composed tabular dataset its own class:

    Example:
        >>> from chainer_compat.dataset import tabular
        >>> class Squares(tabular.DelegateDataset):
        ...     def __init__(self):
        ...         super().__init__(tabular.from_data(
        ...             (('x', [0, 1, 2, 3]), ('y', lambda i: i * i))))
        >>> Squares()[3]
        (3, 9)

    Args:
        dataset: The tabular dataset to forward to; kept as the ``dataset`` attribute.

    Compat:
        As in Chainer, :meth:`convert` is the default one, not ``dataset``'s.
    """

    def __init__(self, dataset: TabularDataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.dataset.keys

    @property
    def mode(self) -> type | None:
        return self.dataset.mode

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        return self.dataset.get_examples(indices, key_indices)
