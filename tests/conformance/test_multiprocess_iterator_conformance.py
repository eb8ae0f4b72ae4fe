"""Chainer-visible behaviour of ``chainer.iterators.MultiprocessIterator``: the minibatches
and epoch bookkeeping of SerialIterator, snapshot keys, copying and finalize. Each
case was checked against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import copy
import importlib
import os
import time

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
iterators = importlib.import_module(chainer.__name__ + ".iterators")
serializers = importlib.import_module(chainer.__name__ + ".serializers")


def trace(iterator, steps):
    found = []
    for _ in range(steps):
        try:
            batch = iterator.next()
        except StopIteration:
            found.append("stop")
            continue
        found.append(([numpy.asarray(example).tolist() for example in batch], iterator.epoch,
                      iterator.is_new_epoch, iterator.current_position,
                      iterator.epoch_detail, iterator.previous_epoch_detail))
    return found


@pytest.mark.parametrize("repeat", [True, False])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("n_prefetch", [1, 3])
def test_minibatches_match_serial_iterator(repeat, shuffle, n_prefetch):
    dataset = [numpy.full(2, index, numpy.float32) for index in range(7)]
    numpy.random.seed(3)
    expected = trace(iterators.SerialIterator(dataset, 3, repeat=repeat, shuffle=shuffle), 9)
    numpy.random.seed(3)
    iterator = iterators.MultiprocessIterator(dataset, 3, repeat=repeat, shuffle=shuffle,
                                              n_processes=2, n_prefetch=n_prefetch)
    try:
        assert trace(iterator, 9) == expected
    finally:
        iterator.finalize()


def test_attributes_and_defaults():
    iterator = iterators.MultiprocessIterator(list(range(4)), 2, n_processes=2, n_prefetch=0)
    try:
        assert iterator.n_processes == 2
        assert iterator.n_prefetch == 1
        assert iterator.repeat is True
        assert iterator.shuffle is None
        assert iterator.shared_mem is None
        assert iterator.dataset_timeout == 30.0
        assert iterator.previous_epoch_detail is None
        assert issubclass(iterators.MultiprocessIterator.TimeoutWarning, RuntimeWarning)
        assert isinstance(iterator.order_sampler, iterators.ShuffleOrderSampler)
    finally:
        iterator.finalize()
    default = iterators.MultiprocessIterator(list(range(4)), 2)
    try:
        assert default.n_processes >= 1
    finally:
        default.finalize()


def test_shuffle_with_order_sampler_is_value_error():
    with pytest.raises(ValueError):
        iterators.MultiprocessIterator(list(range(4)), 2, shuffle=True,
                                       order_sampler=iterators.ShuffleOrderSampler())


def test_snapshot_keys_and_resume_continue_the_same_minibatches():
    dataset = list(range(10))
    numpy.random.seed(0)
    source = iterators.MultiprocessIterator(dataset, 4, n_processes=2, n_prefetch=2)
    try:
        trace(source, 3)
        saved = serializers.DictionarySerializer()
        source.serialize(saved)
        assert sorted(saved.target) == ["current_position", "epoch", "is_new_epoch", "order",
                                        "previous_epoch_detail"]
        expected = trace(source, 4)
    finally:
        source.finalize()
    target = iterators.MultiprocessIterator(dataset, 4, n_processes=2)
    try:
        target.serialize(serializers.NpzDeserializer(saved.target))
        numpy.random.seed(1)  # later epochs draw new orders
        assert [batch[0] for batch in trace(target, 4)][:2] == \
            [batch[0] for batch in expected][:2]
    finally:
        target.finalize()


def test_copy_continues_from_the_same_position():
    iterator = iterators.MultiprocessIterator(list(range(6)), 2, shuffle=False, n_processes=2)
    try:
        iterator.next()
        other = copy.copy(iterator)
        try:
            assert other.next() == [2, 3]
            assert other.previous_epoch_detail == pytest.approx(1 / 3)
        finally:
            other.finalize()
        assert iterator.next() == [2, 3]
    finally:
        iterator.finalize()


def test_reset_after_finalize_is_not_implemented_error():
    iterator = iterators.MultiprocessIterator(list(range(4)), 2, n_processes=1)
    iterator.next()
    iterator.finalize()
    iterator.finalize()
    with pytest.raises(NotImplementedError):
        iterator.reset()


def test_reset_starts_a_new_first_epoch():
    iterator = iterators.MultiprocessIterator(list(range(5)), 2, shuffle=False,
                                              n_processes=1, n_prefetch=2)
    try:
        trace(iterator, 3)
        iterator.reset()
        assert (iterator.epoch, iterator.current_position) == (0, 0)
        assert iterator.previous_epoch_detail is None
        assert iterator.next() == [0, 1]
    finally:
        iterator.finalize()


def test_next_epochs_shuffle_is_drawn_before_the_main_thread_draws_again():
    # Chainer's prefetch thread has drawn the order of the minibatch after the queued ones by
    # the time the first one is handed out (the pause lets its thread get there), so the next
    # epoch's shuffle comes from the global generator before the main thread's own draw.
    numpy.random.seed(0)
    iterator = iterators.MultiprocessIterator(list(range(10)), 4, n_processes=1)
    try:
        iterator.next()
        time.sleep(0.3)
        drawn_after_first = numpy.random.randint(1000)
    finally:
        iterator.finalize()
    numpy.random.seed(0)
    # The same draws by hand: the first epoch's order, then the second's, then ours.
    numpy.random.permutation(10)
    numpy.random.permutation(10)
    assert drawn_after_first == numpy.random.randint(1000)


class _DrawingDataset:
    """Each read draws from NumPy's global generator, as augmentation does."""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return float(numpy.random.rand())


@pytest.mark.parametrize("shared_mem", [None, 1000])
def test_the_first_minibatch_draws_in_this_process_only_without_shared_mem(shared_mem):
    # Chainer reads the first minibatch here to size its shared memory, before it forks.
    numpy.random.seed(0)
    draws = numpy.random.rand(3).tolist()
    numpy.random.seed(0)
    iterator = iterators.MultiprocessIterator(_DrawingDataset(), 2, shuffle=False,
                                              n_processes=1, shared_mem=shared_mem)
    try:
        first = iterator.next()
        second = iterator.next()
        after = numpy.random.rand()
    finally:
        iterator.finalize()
    if shared_mem is None:
        assert first == draws[:2]
        assert second == draws[2:] + [second[1]]  # the workers started from the draws made
        assert after == draws[2]
    else:
        assert first == draws[:2]  # the workers start from this process's state
        assert after == draws[0]
