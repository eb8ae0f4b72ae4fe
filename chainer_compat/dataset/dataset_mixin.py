"""``DatasetMixin``: indexing by int, slice, list or 1-D integer array on top of a single
``get_example(i)`` method.

Layer 8: imports numpy only.
"""

from __future__ import annotations

from typing import Any

import numpy


class DatasetMixin:
    """Gives a dataset Chainer's indexing from ``get_example`` and ``__len__``.

    A subclass defines ``__len__`` and ``get_example(i)``; ``dataset[i]`` then returns one
    example and ``dataset[slice]``, ``dataset[list]`` and ``dataset[ndarray]`` return a list of
    examples. A subclass that can slice faster may override ``__getitem__``.

    Example:
        >>> class Squares(DatasetMixin):
        ...     def __len__(self):
        ...         return 4
        ...     def get_example(self, i):
        ...         return i * i
        >>> Squares()[1:3]
        [1, 4]
    """

    def __getitem__(self, index: Any) -> Any:
        """Returns one example for an integer index, else a list of examples.

        Args:
            index: An int, a slice, a list of ints or a 1-D integer ndarray.

        Returns:
            ``get_example(index)`` for an int; a list of ``get_example`` results otherwise.
        """
        if isinstance(index, slice):
            return [self.get_example(i) for i in range(*index.indices(len(self)))]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in index]
        return self.get_example(index)

    def __len__(self) -> int:
        """Returns the number of examples."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement __len__ to return the number of examples")

    def get_example(self, i: int) -> Any:
        """Returns the ``i``-th example.

        Args:
            i: The index of the example.

        Raises:
            IndexError: Implementations raise it for an index out of range.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_example(i) to return the i-th example")
