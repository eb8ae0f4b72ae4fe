"""The view behind ``TabularDataset.slice[indices, keys]``: some rows and columns of a dataset,
read through the underlying dataset's ``get_examples`` with the two selections composed.

Layer 8: imports numpy and chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset


class _Slice(TabularDataset):
    """Rows ``indices`` and columns ``keys`` of ``dataset``."""

    def __init__(self, dataset: TabularDataset, indices: Any, keys: Any) -> None:
        # _unary: None keeps the dataset's mode, True gives mode None (one key, not a tuple).
        self._unary: bool | None
        if keys is None:
            self._unary = None
        elif isinstance(keys, tuple):
            self._unary = False
        else:
            self._unary = True
            keys = (keys,)
        self._dataset = dataset
        self._indices = _as_indices(indices, len(dataset))
        self._key_indices = _as_key_indices(keys, dataset.keys)

    def __len__(self) -> int:
        if self._indices is None:
            return len(self._dataset)
        if isinstance(self._indices, slice):
            return len(range(*self._indices.indices(len(self._dataset))))
        return len(self._indices)

    @property
    def keys(self) -> tuple[str, ...]:
        if self._key_indices is None:
            return self._dataset.keys
        keys = self._dataset.keys
        return tuple(keys[key_index] for key_index in self._key_indices)

    @property
    def mode(self) -> type | None:
        if self._unary is None:
            return self._dataset.mode
        if self._unary:
            return None
        return self._dataset.mode or tuple

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        rows = _compose_indices(self._indices, indices, len(self._dataset))
        columns = _compose_key_indices(self._key_indices, key_indices)
        return self._dataset.get_examples(rows, columns)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class _SliceHelper:
    """What ``TabularDataset.slice`` returns: ``[indices]`` or ``[indices, keys]`` makes a view."""

    def __init__(self, dataset: TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> _Slice:
        if isinstance(args, tuple):
            indices, keys = args
        else:
            indices, keys = args, None
        return _Slice(self._dataset, indices, keys)


def _as_indices(indices: Any, length: int) -> slice | list[int]:
    """Checks a row selection: a slice, ints (negative count from the end) or one bool per row.

    Raises:
        ValueError: If bools are given and their number is not ``length``.
        IndexError: If an int is out of range.
    """
    if isinstance(indices, slice):
        return indices
    if isinstance(indices, (numbers.Integral, str)) or not hasattr(indices, "__len__"):
        raise TypeError(
            f"indices of a tabular slice must be a slice or a list or array of ints or bools, "
            f"got {type(indices).__name__}")
    if len(indices) == 0:
        return []
    if all(isinstance(index, (bool, numpy.bool_)) for index in indices):
        if len(indices) != length:
            # compat: Chainer's wording first.
            raise ValueError(
                f"The number of booleans is different from the length of dataset: a boolean "
                f"mask must have one value per row ({length}), got {len(indices)}")
        return [i for i, keep in enumerate(indices) if keep]
    checked = []
    for index in indices:
        position = int(index)
        if position < 0:
            position += length
        if not 0 <= position < length:
            raise IndexError(f"index {index} is out of bounds for dataset with size {length}")
        checked.append(position)
    return checked


def _as_key_indices(keys: tuple[Any, ...] | None, names: tuple[str, ...]) -> tuple[int, ...] | None:
    """Turns column names and positions (negative count from the end) into positions.

    Raises:
        IndexError: If a position is out of range.
        KeyError: If a name is not a column.
    """
    if keys is None:
        return None
    key_indices = []
    for key in keys:
        if isinstance(key, numbers.Integral):
            position = int(key)
            if position < 0:
                position += len(names)
            if not 0 <= position < len(names):
                raise IndexError(
                    f"index {key} is out of bounds for keys with size {len(names)}")
        else:
            if key not in names:
                # compat: Chainer's wording.
                raise KeyError(f"{key} does not exists")
            position = names.index(key)
        key_indices.append(position)
    return tuple(key_indices)


def _range_to_slice(rows: range) -> slice:
    """Returns a slice that selects exactly ``rows`` of any sequence longer than its items."""
    if len(rows) == 0:
        return slice(0, 0, 1)
    # A negative stop after a descending range means "through row 0", which a slice spells None.
    return slice(rows.start, rows.stop if rows.stop >= 0 else None, rows.step)


def _compose_indices(outer: slice | list[int] | None, inner: Indices, outer_length: int) -> Indices:
    """Returns the rows of the base dataset that ``inner`` selects from the view ``outer``."""
    if outer is None:
        return inner
    if inner is None:
        return outer
    if isinstance(outer, slice):
        rows = range(*outer.indices(outer_length))
        if isinstance(inner, slice):
            return _range_to_slice(rows[inner])
        return [rows[index] for index in inner]
    if isinstance(inner, slice):
        return outer[inner]
    return [outer[index] for index in inner]


def _compose_key_indices(outer: tuple[int, ...] | None, inner: KeyIndices) -> KeyIndices:
    """Returns the columns of the base dataset that ``inner`` selects from the view ``outer``."""
    if outer is None:
        return inner
    if inner is None:
        return outer
    return tuple(outer[key_index] for key_index in inner)

