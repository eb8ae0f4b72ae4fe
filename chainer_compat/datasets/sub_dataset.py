"""``SubDataset`` (a window of a base dataset, optionally through a permutation) and the
splitting helpers built on it: train/validation splits, ``n``-way splits and cross validation.

Layer 8: imports ``dataset.dataset_mixin``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat.dataset.dataset_mixin import DatasetMixin

__all__ = [
    "SubDataset",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
    "split_dataset",
    "split_dataset_n",
    "split_dataset_n_random",
    "split_dataset_random",
]


class SubDataset(DatasetMixin):
    """The examples ``start`` to ``finish - 1`` of a base dataset, optionally permuted.

    Without ``order`` the ``i``-th example is ``dataset[start + i]``; with it, it is
    ``dataset[order[start + i]]``. A negative ``i`` counts back from ``finish``.

    Args:
        dataset: The base dataset.
        start: The first index of the window.
        finish: One past the last index of the window.
        order: A permutation of the base dataset's indices, or None for the identity.

    Raises:
        ValueError: If the window leaves the base dataset, or ``order`` has another length
            than the base dataset.
    """

    def __init__(self, dataset: Any, start: int, finish: int,
                 order: Sequence[int] | numpy.ndarray | None = None) -> None:
        if start < 0 or finish > len(dataset):
            raise ValueError(
                f"subset overruns the base dataset: start and finish must lie in "
                f"[0, {len(dataset)}], got start={start}, finish={finish}")
        if order is not None and len(order) != len(dataset):
            raise ValueError(
                f"order option must have the same length as the base dataset: "
                f"len(order) = {len(order)} while len(dataset) = {len(dataset)}")
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        """Returns the ``i``-th example of the window.

        Raises:
            IndexError: If ``i`` is outside ``[-len(self), len(self))``.
        """
        if not -self._size <= i < self._size:
            raise IndexError("dataset index out of range")
        index = self._start + i if i >= 0 else self._finish + i
        if self._order is not None:
            index = self._order[index]
        return self._dataset[index]


def split_dataset(dataset: Any, split_at: int,
                  order: Sequence[int] | numpy.ndarray | None = None,
                  ) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset in two at ``split_at``.

    Args:
        dataset: The dataset to split.
        split_at: The number of examples in the first part.
        order: A permutation of the indices to split, or None for the identity.

    Returns:
        Two :class:`SubDataset` s: the examples ``order[:split_at]`` and ``order[split_at:]``.

    Raises:
        TypeError: If ``split_at`` is not an integer.
        ValueError: If ``split_at`` is negative or larger than the dataset.
    """
    length = len(dataset)
    if not isinstance(split_at, (int, numpy.integer)):
        raise TypeError(f"split_at must be int, got {type(split_at)} instead")
    if split_at < 0:
        raise ValueError(f"split_at must be non-negative, got {split_at}")
    if split_at > length:
        raise ValueError(
            f"split_at exceeds the dataset size: it must be at most {length}, got {split_at}")
    return SubDataset(dataset, 0, split_at, order), SubDataset(dataset, split_at, length, order)


def split_dataset_random(dataset: Any, first_size: int,
                         seed: int | None = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset in two at random.

    Args:
        dataset: The dataset to split.
        first_size: The number of examples in the first part.
        seed: Seed of the ``numpy.random.RandomState`` that draws the permutation; the same
            seed gives the same split. None draws a fresh one.

    Returns:
        Two :class:`SubDataset` s that share no example and together cover the dataset.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def split_dataset_n(dataset: Any, n: int,
                    order: Sequence[int] | numpy.ndarray | None = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` parts of ``len(dataset) // n`` examples each.

    The last ``len(dataset) % n`` examples (in ``order``) belong to no part.

    Args:
        dataset: The dataset to split.
        n: The number of parts.
        order: A permutation of the indices to split, or None for the identity.

    Returns:
        The ``n`` :class:`SubDataset` s; the ``i``-th holds ``order[i * size:(i + 1) * size]``.
    """
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(dataset: Any, n: int, seed: int | None = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` parts at random, like :func:`split_dataset_n`.

    Args:
        dataset: The dataset to split.
        n: The number of parts.
        seed: Seed of the ``numpy.random.RandomState`` that draws the permutation, or None.

    Returns:
        The ``n`` :class:`SubDataset` s of ``len(dataset) // n`` examples each.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def get_cross_validation_datasets(dataset: Any, n_folds: int | None = None,
                                  order: Sequence[int] | numpy.ndarray | None = None,
                                  **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Returns ``n_folds`` (training, test) splits for cross validation.

    The test parts share no example, cover the dataset together and differ in size by at
    most one.

    Args:
        dataset: The dataset to split.
        n_folds: The number of splits.
        order: The order of indices the folds are cut from, or None for the identity.
        kwargs: ``n_fold``, the deprecated name of ``n_folds``.

    Returns:
        A list of ``(training, test)`` pairs of :class:`SubDataset` s.

    Raises:
        ValueError: If ``n_folds`` exceeds the number of examples (a test part would be
            empty).
    """
    if "n_fold" in kwargs:
        warnings.warn("Argument `n_fold` is deprecated. Please use `n_folds` instead",
                      DeprecationWarning, stacklevel=1)
        n_folds = kwargs["n_fold"]
    if n_folds is None:
        raise TypeError("n_folds must be a positive int, got None")
    length = len(dataset)
    if n_folds > length:
        # compat: Chainer fails here too (a NumPy broadcasting ValueError).
        raise ValueError(
            f"n_folds must be at most the number of examples {length}, got {n_folds}")
    current = numpy.arange(length) if order is None else numpy.array(order)
    borders = [length * i // n_folds for i in range(n_folds + 1)]
    test_sizes = [borders[i + 1] - borders[i] for i in range(n_folds)]
    splits = []
    # Each split tests on the tail of the current order; rotating that tail to the front
    # brings the next fold's test examples to the end.
    for test_size in reversed(test_sizes):
        splits.append(split_dataset(dataset, length - test_size, current))
        current = numpy.concatenate([current[length - test_size:], current[:length - test_size]])
    return splits


def get_cross_validation_datasets_random(dataset: Any, n_folds: int, seed: int | None = None,
                                         **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Returns cross-validation splits, like :func:`get_cross_validation_datasets`, of a
    random order.

    Args:
        dataset: The dataset to split.
        n_folds: The number of splits.
        seed: Seed of the ``numpy.random.RandomState`` that draws the order, or None.
        kwargs: ``n_fold``, the deprecated name of ``n_folds``.

    Returns:
        A list of ``(training, test)`` pairs of :class:`SubDataset` s.
    """
    if "n_fold" in kwargs:
        warnings.warn("Argument `n_fold` is deprecated. Please use `n_folds` instead",
                      DeprecationWarning, stacklevel=1)
        n_folds = kwargs["n_fold"]
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order)
