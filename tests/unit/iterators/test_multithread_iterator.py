"""Unit tests of MultithreadIterator: reads happen on worker threads, errors reach the caller,
finalize is harmless to repeat, and a failed constructor leaves nothing to clean up."""

from __future__ import annotations

import gc
import sys
import threading

import numpy
import pytest

from chainer_compat import iterators


class RecordingDataset:
    def __init__(self, size, failing_index=None):
        self.size = size
        self.failing_index = failing_index
        self.threads = set()

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        self.threads.add(threading.get_ident())
        if index == self.failing_index:
            raise KeyError(f"bad example {index}")
        return int(index)


def test_examples_are_read_on_worker_threads():
    dataset = RecordingDataset(8)
    with iterators.MultithreadIterator(dataset, 4, shuffle=False, n_threads=2) as iterator:
        assert iterator.n_threads == 2
        assert next(iterator) == [0, 1, 2, 3]
        assert next(iterator) == [4, 5, 6, 7]
    assert dataset.threads
    assert threading.get_ident() not in dataset.threads


def test_a_reading_error_reaches_the_caller_with_its_minibatch():
    iterator = iterators.MultithreadIterator(RecordingDataset(6, failing_index=4), 2,
                                             shuffle=False)
    assert next(iterator) == [0, 1]
    assert next(iterator) == [2, 3]
    with pytest.raises(KeyError, match="bad example 4"):
        next(iterator)
    iterator.finalize()


def test_finalize_twice_then_iterate_again():
    iterator = iterators.MultithreadIterator(list(range(5)), 2, shuffle=False)
    assert next(iterator) == [0, 1]
    iterator.finalize()
    iterator.finalize()
    assert next(iterator) == [2, 3]
    iterator.finalize()


def test_reset_drops_the_prefetched_minibatch():
    iterator = iterators.MultithreadIterator(list(range(5)), 2, shuffle=False)
    next(iterator)
    iterator.reset()
    assert (iterator.epoch, iterator.current_position) == (0, 0)
    assert next(iterator) == [0, 1]
    iterator.finalize()


def test_failed_constructor_leaves_nothing_for_del_to_trip_on(monkeypatch):
    raised = []
    monkeypatch.setattr(sys, "unraisablehook", raised.append)
    with pytest.raises(ValueError):
        iterators.MultithreadIterator([1], 1, shuffle=True,
                                      order_sampler=iterators.ShuffleOrderSampler())
    gc.collect()
    assert raised == []


def test_stop_iteration_repeats_once_finished():
    iterator = iterators.MultithreadIterator(list(range(3)), 2, repeat=False, shuffle=False)
    assert list(iterator) == [[0, 1], [2]]
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(iterator)
    assert iterator.epoch_detail == 1.0
    iterator.finalize()


def test_none_order_is_saved_and_loaded_without_shuffling(tmp_path):
    from chainer_compat import serializers

    source = iterators.MultithreadIterator(list(range(4)), 3, shuffle=False)
    next(source)
    path = str(tmp_path / "it.npz")
    serializers.save_npz(path, source)
    restored = iterators.MultithreadIterator(list(range(4)), 3, shuffle=False)
    serializers.load_npz(path, restored)
    assert restored.order_sampler is None
    assert next(restored) == [3, 0, 1]
    assert next(source) == [3, 0, 1]
    with numpy.load(path, allow_pickle=True) as npz:
        assert npz["_order"].item() is None
    source.finalize()
    restored.finalize()
