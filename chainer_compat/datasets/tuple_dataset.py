"""``TupleDataset``: equal-length datasets zipped into one dataset of tuples.

Layer 8: imports nothing from chainer_compat.
"""

from __future__ import annotations

from typing import Any


class TupleDataset:
    """A dataset whose ``i``-th example is the tuple of the ``i``-th examples of the datasets.

    ``TupleDataset([8, 0], [3, 1])`` holds ``(8, 3)`` and ``(0, 1)``, as :func:`zip` would.

    Args:
        datasets: Datasets of the same length, each supporting ``__getitem__`` and
            ``__len__``; the ``j``-th gives the ``j``-th item of every tuple.

    Raises:
        ValueError: If no dataset is given or their lengths differ.
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError("no datasets are given")
        length = len(datasets[0])
        for i, dataset in enumerate(datasets):
            if len(dataset) != length:
                # compat: Chainer's wording, followed by the lengths.
                raise ValueError(
                    f"dataset of the index {i} has a wrong length: all datasets must have "
                    f"length {length}, got {len(dataset)}")
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index: Any) -> Any:
        """Returns a tuple for an int, a list of tuples for a slice.

        Compat:
            Any other index (a list or an array of indices) is passed to every dataset and
            the results come back as one tuple of those batches, as in Chainer.
        """
        batches = [dataset[index] for dataset in self._datasets]
        if isinstance(index, slice):
            return list(zip(*batches, strict=True))
        return tuple(batches)

    def __len__(self) -> int:
        return self._length
