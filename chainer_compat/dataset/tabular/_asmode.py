"""The views behind ``TabularDataset.astuple()`` and ``asdict()``: the same rows and columns,
given as tuples or as dicts.

Layer 8: imports chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset


class _AsMode(TabularDataset):
    """``dataset`` with its :attr:`mode` replaced by the class attribute ``_view_mode``."""

    _view_mode: type

    def __init__(self, dataset: TabularDataset) -> None:
        self._dataset = dataset

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> type | None:
        return self._view_mode

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class _Astuple(_AsMode):
    """``dataset`` with mode ``tuple``."""

    _view_mode = tuple


class _Asdict(_AsMode):
    """``dataset`` with mode ``dict``."""

    _view_mode = dict
