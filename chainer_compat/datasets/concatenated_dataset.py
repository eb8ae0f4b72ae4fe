"""``ConcatenatedDataset``: several datasets read one after another as one dataset.

Layer 8: imports ``dataset.dataset_mixin``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.dataset.dataset_mixin import DatasetMixin


class ConcatenatedDataset(DatasetMixin):
    """The examples of the first dataset, then those of the second, and so on.

    A dataset of 10 examples followed by one of 20 gives a dataset of 30 examples.

    Args:
        datasets: The datasets to concatenate (``__getitem__`` and ``__len__``).
    """

    def __init__(self, *datasets: Any) -> None:
        self._datasets = datasets

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self._datasets)

    def get_example(self, i: int) -> Any:
        """Returns the ``i``-th example of the concatenation.

        Raises:
            IndexError: If ``i`` is negative or not less than ``len(self)``.

        Compat:
            A negative index is an IndexError, not a count from the end, as in Chainer.
        """
        if i < 0:
            raise IndexError(
                f"index of a ConcatenatedDataset must be non-negative, got {i}")
        offset = i
        for dataset in self._datasets:
            if offset < len(dataset):
                return dataset[offset]
            offset -= len(dataset)
        raise IndexError(
            f"index of a ConcatenatedDataset must be less than its length {len(self)}, got {i}")
