"""The view behind ``TabularDataset.join(*datasets)``: the columns of several datasets of the
same length side by side.

Layer 8: imports chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset


class _Join(TabularDataset):
    """The columns of ``datasets`` in order; the converter is the first dataset's."""

    def __init__(self, *datasets: TabularDataset) -> None:
        seen = set(datasets[0].keys)
        for dataset in datasets[1:]:
            if len(dataset) != len(datasets[0]):
                # compat: Chainer's wording first.
                raise ValueError(
                    f"All datasets must have the same length: expected {len(datasets[0])}, "
                    f"got {len(dataset)}")
            shared = seen.intersection(dataset.keys)
            if shared:
                raise ValueError(
                    f"All keys must be unique among all datasets, got {sorted(shared)} twice")
            seen.update(dataset.keys)
        self._datasets = datasets

    def __len__(self) -> int:
        return len(self._datasets[0])

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for dataset in self._datasets for key in dataset.keys)

    @property
    def mode(self) -> type | None:
        # The first dataset with a tuple or dict mode decides; columns of bare values join
        # into tuples.
        for dataset in self._datasets:
            if dataset.mode:
                return dataset.mode
        return tuple

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        if key_indices is None:
            return tuple(
                column
                for dataset in self._datasets
                for column in dataset.get_examples(indices, None))
        columns: dict[int, Any] = {}
        key_offset = 0
        for dataset in self._datasets:
            key_count = len(dataset.keys)
            # Each column this dataset owns, asked for once even if requested twice.
            own = tuple(dict.fromkeys(
                key_index - key_offset for key_index in key_indices
                if 0 <= key_index - key_offset < key_count))
            if own:
                for own_index, column in zip(
                        own, dataset.get_examples(indices, own), strict=True):
                    columns[key_offset + own_index] = column
            key_offset += key_count
        return tuple(columns[key_index] for key_index in key_indices)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
