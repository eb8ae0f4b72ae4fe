"""The view behind ``TabularDataset.with_converter(converter)``: the same data, converted by
``converter`` instead of the default array conversion.

Layer 8: imports chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset


class _WithConverter(TabularDataset):
    """``dataset`` whose :meth:`convert` calls ``converter``."""

    def __init__(self, dataset: TabularDataset, converter: Callable[..., Any]) -> None:
        self._dataset = dataset
        self._converter = converter

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> type | None:
        return self._dataset.mode

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        # The columns reach the converter as separate arguments, named after the keys for dicts.
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)
