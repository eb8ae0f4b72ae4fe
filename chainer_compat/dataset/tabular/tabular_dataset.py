"""``TabularDataset``: a dataset of rows with named columns, read column-wise through
``get_examples(indices, key_indices)``, with lazy views (slices, concatenation, joins,
transforms, mode changes) built on that one method.

Layer 8: imports backend and chainer_compat.dataset.dataset_mixin; the view modules, which
subclass this class, only inside the methods that build them.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from chainer_compat import backend
from chainer_compat.dataset.dataset_mixin import DatasetMixin

__all__ = ["Indices", "KeyIndices", "TabularDataset"]

# Rows requested from get_examples: None for all rows, a slice, or a list of row numbers.
Indices = builtins.slice | Sequence[int] | None
# Columns requested from get_examples: None for all columns, or their positions in ``keys``.
KeyIndices = Sequence[int] | None


class TabularDataset(DatasetMixin):
    """Base class of datasets whose examples all have the same columns.

    Every row has one value per column, and the columns are named by :attr:`keys`. A row can
    be given as a tuple ``(a[i], b[i])`` or a dict ``{'a': a[i], 'b': b[i]}``: :attr:`mode`
    (``tuple`` or ``dict``) says which. A dataset of one column may also give the bare value
    ``a[i]``, with ``mode`` None.

    A subclass implements ``__len__``, :attr:`keys`, :attr:`mode` and :meth:`get_examples`;
    indexing, iteration, :meth:`fetch` and the views (:attr:`slice`, :meth:`concat`,
    :meth:`join`, :meth:`transform`, :meth:`astuple`, ...) come from this class. Views read
    their data only when asked.

    Example:
        >>> from chainer_compat.dataset import tabular
        >>> dataset = tabular.from_data((('a', [0, 1, 2]), ('b', [3, 4, 5])))
        >>> dataset[1]
        (1, 4)
        >>> dataset.slice[[2, 0], 'b'].fetch()
        [5, 3]
    """

    def __len__(self) -> int:
        raise NotImplementedError(
            f"{type(self).__name__} must implement __len__ to return the number of rows")

    @property
    def keys(self) -> tuple[str, ...]:
        """The names of the columns, as a tuple of strings."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement the keys property to name its columns")

    @property
    def mode(self) -> type | None:
        """How a row is given: ``tuple``, ``dict``, or None for the bare value of one column."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement the mode property (tuple, dict or None)")

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple[Any, ...]:
        """Returns some rows of some columns, column by column.

        Args:
            indices: The rows: a slice or a list of row numbers, or None for all rows.
            key_indices: The positions in :attr:`keys` of the columns, or None for all.

        Returns:
            A tuple with one list or array per requested column, holding the requested rows.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_examples(indices, key_indices)")

    @property
    def slice(self) -> Any:
        """A helper whose ``[indices]`` or ``[indices, keys]`` returns a view of some rows/columns.

        ``indices`` is a slice, a list or array of ints, or a list or array of bools with one
        per row. ``keys`` is a column name or position, giving a view of mode None, or a tuple
        of them. ``dataset.slice[[3, 2], ('c', 0)]`` holds rows 3 and 2 of columns ``c`` and
        ``a`` (the first column), in that order.
        """
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _slice
        return _slice._SliceHelper(self)

    def fetch(self) -> Any:
        """Returns all the data, column by column.

        Returns:
            With mode ``tuple``, a tuple of one list or array per column; with mode ``dict``, a
            dict from each key to its column; with mode None, the one column.

        Raises:
            ValueError: If :attr:`mode` is not ``tuple``, ``dict`` or None.
        """
        return self._shape_example(self.get_examples(None, None))

    def convert(self, data: Any) -> Any:
        """Turns the output of :meth:`fetch` into arrays, ready for a model.

        By default each column becomes an array on the device of its first value; use
        :meth:`with_converter` to do something else. A concatenated or joined dataset uses the
        converter of its first dataset.

        Args:
            data: The value :meth:`fetch` returned (a tuple, a dict or one column).

        Returns:
            ``data`` with every column as an array, in the same structure.
        """
        if isinstance(data, tuple):
            return tuple(_as_array(column) for column in data)
        if isinstance(data, dict):
            return {key: _as_array(column) for key, column in data.items()}
        return _as_array(data)

    def astuple(self) -> TabularDataset:
        """Returns a view of this dataset whose :attr:`mode` is ``tuple``."""
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _asmode
        return _asmode._Astuple(self)

    def asdict(self) -> TabularDataset:
        """Returns a view of this dataset whose :attr:`mode` is ``dict``."""
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _asmode
        return _asmode._Asdict(self)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """Returns the rows of this dataset followed by the rows of ``datasets``.

        Args:
            datasets: Tabular datasets with the same :attr:`keys` as this one.

        Raises:
            ValueError: If the keys differ.
        """
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _concat
        return _concat._Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """Returns the columns of this dataset followed by the columns of ``datasets``.

        Args:
            datasets: Tabular datasets with as many rows as this one and none of its keys.

        Raises:
            ValueError: If the lengths differ or a key appears in two datasets.
        """
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _join
        return _join._Join(self, *datasets)

    def transform(
        self, keys: str | tuple[str, ...], transform: Callable[..., Any],
    ) -> TabularDataset:
        """Returns a view that applies ``transform`` to each row.

        Args:
            keys: The names of the columns of the result (one name for one column).
            transform: Called with a row's values as positional arguments (mode ``tuple`` or
                None) or keyword arguments (mode ``dict``); returns a tuple, a dict keyed by
                ``keys``, or a bare value. That type sets the view's :attr:`mode`, and must be
                the same for every row.
        """
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _transform
        return _transform._Transform(self, keys, transform)

    def transform_batch(
        self, keys: str | tuple[str, ...], transform_batch: Callable[..., Any],
    ) -> TabularDataset:
        """Returns a view that applies ``transform_batch`` to columns of many rows at once.

        Args:
            keys: The names of the columns of the result (one name for one column).
            transform_batch: Called with the requested rows' columns as positional arguments
                (mode ``tuple`` or None) or keyword arguments (mode ``dict``); returns a tuple
                of columns, a dict of columns keyed by ``keys``, or one column, each as long
                as its input. That type sets the view's :attr:`mode`.
        """
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _transform
        return _transform._TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable[..., Any]) -> TabularDataset:
        """Returns a view whose :meth:`convert` calls ``converter`` instead.

        Args:
            converter: Called with the columns fetched as positional arguments (tuple data),
                keyword arguments (dict data) or the one column (mode None).
        """
        # Imported here: the view classes subclass TabularDataset.
        from chainer_compat.dataset.tabular import _with_converter
        return _with_converter._WithConverter(self, converter)

    def get_example(self, i: int) -> Any:
        """Returns row ``i`` as a tuple, a dict or a bare value, following :attr:`mode`."""
        columns = self.get_examples([i], None)
        return self._shape_example(tuple(column[0] for column in columns))

    def __iter__(self) -> Iterator[Any]:
        return (self.get_example(i) for i in range(len(self)))

    def _shape_example(self, values: tuple[Any, ...]) -> Any:
        """Returns one value per column as this dataset's mode says: tuple, dict or bare."""
        mode = self.mode
        if mode is tuple:
            return values
        if mode is dict:
            return dict(zip(self.keys, values, strict=True))
        if mode is None:
            return values[0]
        raise ValueError(
            f"mode of {type(self).__name__} must be tuple, dict or None, got {mode!r}")


def _as_array(column: Any) -> Any:
    """Returns ``column`` as an array on the device of its first value (arrays pass through)."""
    if isinstance(column, backend.get_array_types()):
        return column
    # An empty column has no first value to take a device from; it stays on the host.
    device = backend.get_device_from_array(column[0]) if len(column) else backend.CpuDevice()
    with backend.using_device(device):
        return device.xp.asarray(column)
