"""``DictDataset``: equal-length datasets combined into one dataset of dicts.

Layer 8: imports nothing from chainer_compat.
"""

from __future__ import annotations

from typing import Any


class DictDataset:
    """A dataset whose ``i``-th example maps each keyword to that dataset's ``i``-th example.

    Args:
        datasets: Datasets of the same length, given as keyword arguments; the keywords
            become the keys of every example.

    Raises:
        ValueError: If no dataset is given or their lengths differ.
    """

    def __init__(self, **datasets: Any) -> None:
        if not datasets:
            raise ValueError("no datasets are given")
        length: int | None = None
        for key, dataset in datasets.items():
            if length is None:
                length = len(dataset)
            elif len(dataset) != length:
                raise ValueError(
                    f'dataset length conflicts at "{key}": all datasets must have length '
                    f"{length}, got {len(dataset)}")
        self._datasets = datasets
        self._length: int = 0 if length is None else length

    def __getitem__(self, index: Any) -> Any:
        """Returns a dict for an int, a list of dicts for a slice.

        Compat:
            Any other index is passed to every dataset and one dict of the results comes
            back, as in Chainer.
        """
        batches = {key: dataset[index] for key, dataset in self._datasets.items()}
        if isinstance(index, slice):
            length = len(next(iter(batches.values())))
            return [{key: batch[i] for key, batch in batches.items()} for i in range(length)]
        return batches

    def __len__(self) -> int:
        return self._length
