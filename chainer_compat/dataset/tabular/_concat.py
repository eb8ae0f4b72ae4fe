"""The view behind ``TabularDataset.concat(*datasets)``: the rows of several datasets with the
same keys, one dataset after another.

Layer 8: imports chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Any

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset


class _Concat(TabularDataset):
    """The rows of ``datasets`` in order; keys, mode and converter are the first dataset's."""

    def __init__(self, *datasets: TabularDataset) -> None:
        for dataset in datasets[1:]:
            if dataset.keys != datasets[0].keys:
                # compat: Chainer's wording first.
                raise ValueError(
                    f"All datasets must have the same keys: expected {datasets[0].keys}, got "
                    f"{dataset.keys}")
        self._datasets = datasets

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self._datasets)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._datasets[0].keys

    @property
    def mode(self) -> type | None:
        return self._datasets[0].mode

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        column_count = len(self.keys) if key_indices is None else len(key_indices)
        if indices is None:
            parts = [dataset.get_examples(None, key_indices) for dataset in self._datasets]
            return _join_parts(parts, column_count)
        if isinstance(indices, slice):
            return self._get_slice(indices, key_indices, column_count)
        return self._get_list(indices, key_indices, column_count)

    def _get_slice(
        self, indices: slice, key_indices: KeyIndices, column_count: int,
    ) -> tuple[Any, ...]:
        rows = range(*indices.indices(len(self)))
        parts = []
        offset = 0
        for dataset in self._datasets:
            size = len(dataset)
            first, end = _positions_within(rows, offset, offset + size)
            if first < end:
                # compat: each dataset gets the slice Chainer hands it: from its first row, to
                # the requested stop cut at its own end (None past its start when descending).
                stop = rows.stop - offset
                if rows.step > 0:
                    stop = min(stop, size)
                elif stop < 0:
                    stop = None  # type: ignore[assignment]
                part = slice(rows[first] - offset, stop, rows.step)
                parts.append(dataset.get_examples(part, key_indices))
            offset += size
        # A descending slice meets the later datasets first.
        if rows.step < 0:
            parts.reverse()
        # Rows of a single dataset come back as that dataset gave them (arrays stay arrays).
        if len(parts) == 1:
            return parts[0]
        return _join_parts(parts, column_count)

    def _get_list(
        self, indices: Any, key_indices: KeyIndices, column_count: int,
    ) -> tuple[Any, ...]:
        # starts[k] is the first row of dataset k; the last item is the total length.
        starts = list(itertools.accumulate((len(dataset) for dataset in self._datasets),
                                           initial=0))
        length = starts[-1]
        # For each requested row: which dataset holds it and where it lands in that part.
        sources = []
        rows_by_dataset: dict[int, list[int]] = {}
        for index in indices:
            position = index + length if index < 0 else index
            if not 0 <= position < length:
                raise IndexError(f"index {index} is out of bounds for dataset with size {length}")
            dataset_number = bisect.bisect_right(starts, position) - 1
            rows = rows_by_dataset.setdefault(dataset_number, [])
            sources.append((dataset_number, len(rows)))
            rows.append(position - starts[dataset_number])
        if not rows_by_dataset:
            return tuple([] for _ in range(column_count))
        parts = {
            dataset_number: self._datasets[dataset_number].get_examples(rows, key_indices)
            for dataset_number, rows in rows_by_dataset.items()
        }
        if len(parts) == 1:
            return next(iter(parts.values()))
        return tuple(
            [parts[dataset_number][column][row] for dataset_number, row in sources]
            for column in range(column_count))

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)


def _join_parts(parts: list[tuple[Any, ...]], column_count: int) -> tuple[list[Any], ...]:
    """Returns each column as one list holding that column of every part, in order."""
    return tuple(
        [value for part in parts for value in part[column]] for column in range(column_count))


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def _positions_within(rows: range, low: int, high: int) -> tuple[int, int]:
    """Returns ``(first, end)`` such that ``rows[first:end]`` are the items in ``[low, high)``."""
    if rows.step > 0:
        first = _ceil_div(low - rows.start, rows.step)
        end = _ceil_div(high - rows.start, rows.step)
    else:
        first = _ceil_div(rows.start - (high - 1), -rows.step)
        end = _ceil_div(rows.start - low + 1, -rows.step)
    return min(max(first, 0), len(rows)), min(max(end, 0), len(rows))

