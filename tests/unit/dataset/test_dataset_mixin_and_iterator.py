"""Unit tests of DatasetMixin and the Iterator base class: messages, finalize from __del__
and the context manager."""

from __future__ import annotations

import gc

import numpy
import pytest

from chainer_compat.dataset import DatasetMixin, Iterator


class Letters(DatasetMixin):
    def __len__(self):
        return 5

    def get_example(self, i):
        return "abcde"[i]


def test_dataset_mixin_indexing_by_numpy_integers_and_arrays():
    letters = Letters()
    assert letters[numpy.int64(2)] == "c"
    assert letters[numpy.array([4, 4, 0])] == ["e", "e", "a"]
    assert letters[1:100] == ["b", "c", "d", "e"]
    assert letters[[]] == []


def test_dataset_mixin_names_the_missing_method():
    with pytest.raises(NotImplementedError, match="must implement get_example"):
        DatasetMixin().get_example(0)
    with pytest.raises(NotImplementedError, match="must implement __len__"):
        len(DatasetMixin())


class CountingIterator(Iterator):
    def __init__(self, log):
        self.log = log

    def __next__(self):
        return [1]

    def finalize(self):
        self.log.append("finalize")


def test_iterator_next_spellings_and_iteration():
    iterator = CountingIterator([])
    assert iterator.next() == [1]
    assert next(iter(iterator)) == [1]


def test_iterator_finalizes_on_exit_and_on_collection():
    log = []
    with CountingIterator(log) as iterator:
        assert log == []
    assert log == ["finalize"]
    del iterator
    gc.collect()
    assert log == ["finalize", "finalize"]


def test_iterator_next_names_the_missing_method():
    with pytest.raises(NotImplementedError, match="must implement __next__"):
        next(Iterator())
