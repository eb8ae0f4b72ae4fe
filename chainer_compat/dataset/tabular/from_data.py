"""``from_data``: a ``TabularDataset`` made from lists, arrays and callables of a row index,
one per column, named or not.

Layer 8: imports backend and chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend
from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset

__all__ = ["from_data"]


def from_data(data: Any, *, size: int | None = None) -> TabularDataset:
    """Returns a tabular dataset whose columns are the given lists, arrays or callables.

    ``data`` takes one of these forms:

    - a list or array: one unnamed column (mode None);
    - ``(key, column)``: one column named ``key`` (mode None), where ``column`` is a list, an
      array or a callable that maps a row index to the value;
    - ``((key, ...), callable)``: columns named by the keys, filled by a callable that maps a
      row index to a tuple or a dict of their values;
    - a tuple of the forms above: their columns side by side (mode ``tuple``);
    - a dict from a key, or a tuple of keys, to a column: mode ``dict``.

    Unnamed columns get a generated key.

    Example:
        >>> from_data(([0, 1, 2], [3, 4, 5]))[0]
        (0, 3)
        >>> from_data(('a', lambda i: i * i), size=10)[5]
        25

    Args:
        data: The columns, in one of the forms above.
        size: The number of rows; needed when every column is a callable, else taken from
            the first list or array.

    Returns:
        The dataset.

    Raises:
        ValueError: If a callable has no key, or no size is known for it.
        TypeError: If a column is not a list, an array or a callable.

    Compat:
        Chainer returns None (or fails later) for an unsupported column; this raises
        ``TypeError``.
    """
    if isinstance(data, tuple):
        if len(data) == 2:
            key, column = data
            if isinstance(key, str) or (
                    isinstance(key, tuple) and all(isinstance(name, str) for name in key)):
                return _make_dataset(key, column, size)
        entries = [entry if isinstance(entry, tuple) else (None, entry) for entry in data]
        size = _size_of((column for _, column in entries), size)
        datasets = [_make_dataset(key, column, size) for key, column in entries]
        return datasets[0].join(*datasets[1:]).astuple()
    if isinstance(data, dict):
        size = _size_of(data.values(), size)
        datasets = [_make_dataset(key, column, size) for key, column in data.items()]
        return datasets[0].join(*datasets[1:]).asdict()
    return _make_dataset(None, data, size)


def _size_of(columns: Any, size: int | None) -> int | None:
    """Returns ``size``, or when it is None the length of the first column that has one."""
    if size is not None:
        return size
    for column in columns:
        try:
            return len(column)
        except TypeError:
            continue
    return None


def _make_dataset(key: Any, column: Any, size: int | None) -> TabularDataset:
    if isinstance(column, backend.get_array_types()):
        return _Array(_key_or_generated(key, column), column)
    if isinstance(column, list):
        return _List(_key_or_generated(key, column), column)
    if callable(column):
        if key is None:
            # compat: Chainer's wording.
            raise ValueError("key(s) must be specified for callable")
        if size is None:
            raise ValueError(
                "size must be specified for callable: pass size=<number of rows> to from_data")
        return _Index(size).transform(key, column)
    raise TypeError(
        f"a column of from_data must be a list, an array or a callable of the row index, got "
        f"{type(column).__name__}")


def _key_or_generated(key: Any, column: Any) -> Any:
    # compat: an unnamed column is keyed by the id of its data, as in Chainer.
    return f"_{id(column)}" if key is None else key


class _Array(TabularDataset):
    """One column held in a NumPy or CuPy array; rows are read by indexing it."""

    def __init__(self, key: str, data: Any) -> None:
        self._key = key
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def keys(self) -> tuple[str, ...]:
        return (self._key,)

    @property
    def mode(self) -> type | None:
        return None

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        column_count = 1 if key_indices is None else len(key_indices)
        rows = self._data if indices is None else self._data[indices]
        return (rows,) * column_count


class _List(TabularDataset):
    """One column held in a list."""

    def __init__(self, key: str, data: list[Any]) -> None:
        self._key = key
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def keys(self) -> tuple[str, ...]:
        return (self._key,)

    @property
    def mode(self) -> type | None:
        return None

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        column_count = 1 if key_indices is None else len(key_indices)
        if indices is None:
            rows = self._data
        elif isinstance(indices, slice):
            rows = self._data[indices]
        else:
            rows = [self._data[index] for index in indices]
        return (rows,) * column_count


class _Index(TabularDataset):
    """One column, keyed ``index``, whose value in each row is the row number."""

    def __init__(self, size: int) -> None:
        self._size = size

    def __len__(self) -> int:
        return self._size

    @property
    def keys(self) -> tuple[str, ...]:
        return ("index",)

    @property
    def mode(self) -> type | None:
        return None

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        if indices is None:
            indices = slice(None)
        if isinstance(indices, slice):
            indices = list(range(*indices.indices(self._size)))
        column_count = 1 if key_indices is None else len(key_indices)
        return (indices,) * column_count
