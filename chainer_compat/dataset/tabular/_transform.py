"""The views behind ``TabularDataset.transform`` (a function of one row) and
``transform_batch`` (a function of the columns of many rows). The type the function returns
(tuple, dict or a bare value) sets the view's mode, found by transforming row 0 if asked first.

Layer 8: imports chainer_compat.dataset.tabular.tabular_dataset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat.dataset.tabular.tabular_dataset import Indices, KeyIndices, TabularDataset


def _as_keys(keys: str | tuple[str, ...]) -> tuple[str, ...]:
    return keys if isinstance(keys, tuple) else (keys,)


def _call_with(function: Callable[..., Any], dataset: TabularDataset, values: Any) -> Any:
    """Calls ``function`` with one value per column of ``dataset``: by name in dict mode."""
    if dataset.mode is dict:
        return function(**dict(zip(dataset.keys, values, strict=True)))
    return function(*values)


def _mode_of(result: Any) -> type | None:
    if isinstance(result, tuple):
        return tuple
    if isinstance(result, dict):
        return dict
    return None


class _TransformBase(TabularDataset):
    """What both transform views share: keys, length, converter and the mode rule."""

    _function_name: str

    def __init__(self, dataset: TabularDataset, keys: str | tuple[str, ...]) -> None:
        self._dataset = dataset
        self._keys = _as_keys(keys)
        self._mode: type | None
        self._mode_known = False

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> type | None:
        if not self._mode_known:
            # The mode is what the function returns; transforming row 0 finds it.
            self.get_examples([0], None)
        return self._mode

    def _record_mode(self, result: Any) -> type | None:
        """Notes the mode ``result`` implies; every later result must imply the same one.

        Raises:
            ValueError: If an earlier result had another type.
        """
        mode = _mode_of(result)
        if self._mode_known and mode is not self._mode:
            # compat: Chainer's wording first.
            raise ValueError(
                f"{self._function_name} must not change its return type: it returned "
                f"{_mode_name(self._mode)} before, got {_mode_name(mode)}")
        self._mode = mode
        self._mode_known = True
        return mode

    def _pick(self, result: Any, mode: type | None, key_index: int) -> Any:
        """Returns the ``key_index``-th column (or value) of ``result``."""
        if mode is dict:
            return result[self._keys[key_index]]
        if mode is None:
            if key_index != 0:
                raise IndexError(
                    f"{self._function_name} returned a single value, so the view has one "
                    f"column, got a request for column {key_index}")
            return result
        return result[key_index]

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


def _mode_name(mode: type | None) -> str:
    return "a bare value" if mode is None else f"a {mode.__name__}"


class _Transform(_TransformBase):
    """``dataset`` with ``transform`` applied to each row."""

    _function_name = "transform"

    def __init__(
        self,
        dataset: TabularDataset,
        keys: str | tuple[str, ...],
        transform: Callable[..., Any],
    ) -> None:
        super().__init__(dataset, keys)
        self._transform = transform

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        wanted = range(len(self._keys)) if key_indices is None else key_indices
        columns: tuple[list[Any], ...] = tuple([] for _ in wanted)
        for row in zip(*self._dataset.get_examples(indices, None), strict=True):
            result = _call_with(self._transform, self._dataset, row)
            mode = self._record_mode(result)
            for column, key_index in zip(columns, wanted, strict=True):
                column.append(self._pick(result, mode, key_index))
        return columns


class _TransformBatch(_TransformBase):
    """``dataset`` with ``transform_batch`` applied to the columns of the requested rows."""

    _function_name = "transform_batch"

    def __init__(
        self,
        dataset: TabularDataset,
        keys: str | tuple[str, ...],
        transform_batch: Callable[..., Any],
    ) -> None:
        super().__init__(dataset, keys)
        self._transform_batch = transform_batch

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        if indices is None:
            row_count = len(self)
        elif isinstance(indices, slice):
            row_count = len(range(*indices.indices(len(self))))
        else:
            row_count = len(indices)
        wanted = range(len(self._keys)) if key_indices is None else key_indices
        result = _call_with(
            self._transform_batch, self._dataset, self._dataset.get_examples(indices, None))
        mode = self._record_mode(result)
        if mode is dict:
            produced = list(result.values())
        elif mode is tuple:
            produced = list(result)
        else:
            produced = [result]
        if any(len(column) != row_count for column in produced):
            # compat: Chainer's wording first.
            raise ValueError(
                f"transform_batch must not change the length of data: every column must have "
                f"{row_count} rows, got {[len(column) for column in produced]}")
        return tuple(self._pick(result, mode, key_index) for key_index in wanted)
