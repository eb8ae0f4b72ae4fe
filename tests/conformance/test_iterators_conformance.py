"""Chainer-visible behaviour of ``chainer.iterators``: the minibatch sequence across epoch
boundaries (repeating or not, shuffled with NumPy's global random state or in index order), the
epoch bookkeeping, the random numbers the iterators draw, serialization through save_npz /
load_npz and the errors. Each case was checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
iterators = importlib.import_module(chainer.__name__ + ".iterators")
serializers = importlib.import_module(chainer.__name__ + ".serializers")

ITERATOR_CLASSES = [
    pytest.param(iterators.SerialIterator, id="serial"),
    pytest.param(lambda *args, **kwargs: iterators.MultithreadIterator(*args, n_threads=3,
                                                                       **kwargs),
                 id="multithread"),
]


@pytest.fixture(params=ITERATOR_CLASSES)
def make_iterator(request):
    made = []

    def make(*args, **kwargs):
        iterator = request.param(*args, **kwargs)
        made.append(iterator)
        return iterator

    yield make
    for iterator in made:
        iterator.finalize()


def expected_index_stream(n: int, epochs: int, shuffle: bool, seed: int) -> list[int]:
    """The dataset indices a repeating iterator reads: one permutation per epoch, drawn from
    numpy's global random state seeded with ``seed``, or index order."""
    numpy.random.seed(seed)
    stream: list[int] = []
    for _ in range(epochs):
        stream.extend(numpy.random.permutation(n).tolist() if shuffle else range(n))
    return stream


def take(iterator, count: int) -> list[list]:
    return [next(iterator) for _ in range(count)]


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize(("n", "batch_size"), [(7, 3), (6, 3), (5, 1), (3, 7), (4, 4)])
def test_repeating_batches_run_on_into_the_next_epoch(make_iterator, shuffle, n, batch_size):
    steps = 9
    epochs = steps * batch_size // n + 2
    stream = expected_index_stream(n, epochs, shuffle, seed=11)
    dataset = [f"example{i}" for i in range(n)]
    numpy.random.seed(11)
    iterator = make_iterator(dataset, batch_size, shuffle=shuffle)
    batches = take(iterator, steps)
    expected = [[dataset[i] for i in stream[k * batch_size:(k + 1) * batch_size]]
                for k in range(steps)]
    assert batches == expected


@pytest.mark.parametrize(("n", "batch_size"), [(7, 3), (6, 3), (3, 7), (4, 4)])
def test_repeating_epoch_bookkeeping_follows_examples_consumed(make_iterator, n, batch_size):
    iterator = make_iterator(list(range(n)), batch_size, shuffle=False)
    assert (iterator.epoch, iterator.current_position, iterator.is_new_epoch) == (0, 0, False)
    assert iterator.epoch_detail == 0.0
    assert iterator.previous_epoch_detail is None
    for step in range(1, 10):
        next(iterator)
        consumed, before = step * batch_size, (step - 1) * batch_size
        assert iterator.epoch == consumed // n
        assert iterator.current_position == consumed % n
        assert iterator.is_new_epoch == (consumed // n > before // n)
        assert iterator.epoch_detail == pytest.approx(consumed / n)
        assert iterator.previous_epoch_detail == pytest.approx(before / n)
        assert iterator.batch_size == batch_size


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize(("n", "batch_size"), [(7, 3), (6, 3), (3, 7)])
def test_non_repeating_iterator_stops_after_one_shorter_last_batch(make_iterator, shuffle, n,
                                                                   batch_size):
    order = expected_index_stream(n, 1, shuffle, seed=5)
    numpy.random.seed(5)
    iterator = make_iterator(list(range(n)), batch_size, repeat=False, shuffle=shuffle)
    batches = list(iterator)
    expected = [order[start:start + batch_size] for start in range(0, n, batch_size)]
    assert batches == expected
    assert (iterator.epoch, iterator.is_new_epoch, iterator.current_position) == (1, True, 0)
    assert iterator.epoch_detail == 1.0
    with pytest.raises(StopIteration):
        next(iterator)
    assert iterator.repeat is False


def test_non_repeating_iterator_still_draws_the_next_order_at_the_epoch_end(make_iterator):
    n = 5
    numpy.random.seed(2)
    reference = [numpy.random.permutation(n) for _ in range(3)]
    numpy.random.seed(2)
    iterator = make_iterator(list(range(n)), 2, repeat=False, shuffle=True)
    assert sum(list(iterator), []) == reference[0].tolist()
    # The iterator drew the first order and the one after the epoch; the global state moved on.
    numpy.testing.assert_array_equal(numpy.random.permutation(n), reference[2])


def test_shuffle_none_without_sampler_shuffles(make_iterator):
    stream = expected_index_stream(6, 2, True, seed=9)
    numpy.random.seed(9)
    iterator = make_iterator(list(range(6)), 4)
    assert sum(take(iterator, 3), []) == stream[:12]


def test_reset_restarts_the_first_epoch_with_a_new_order(make_iterator):
    numpy.random.seed(4)
    first, second = numpy.random.permutation(6), numpy.random.permutation(6)
    numpy.random.seed(4)
    iterator = make_iterator(list(range(6)), 2, shuffle=True)
    assert next(iterator) == first[:2].tolist()
    iterator.reset()
    assert (iterator.epoch, iterator.current_position, iterator.previous_epoch_detail) == (
        0, 0, None)
    assert next(iterator) == second[:2].tolist()


def reverse_sampler_recording(calls):
    def reverse_sampler(current_order, current_position):
        calls.append((list(current_order), int(current_position)))
        return numpy.asarray(current_order)[::-1].copy()

    return reverse_sampler


def test_order_sampler_is_called_at_start_and_each_epoch_end():
    calls = []
    iterator = iterators.SerialIterator(list(range(5)), 3,
                                        order_sampler=reverse_sampler_recording(calls))
    batches = take(iterator, 3)
    assert batches == [[4, 3, 2], [1, 0, 0], [1, 2, 3]]
    # Called once at the start, then with the order and the position where the epoch ended.
    assert calls == [([0, 1, 2, 3, 4], 0), ([4, 3, 2, 1, 0], 3)]


def test_multithread_iterator_calls_the_order_sampler_one_minibatch_early():
    calls = []
    with iterators.MultithreadIterator(list(range(5)), 3,
                                       order_sampler=reverse_sampler_recording(calls)) as it:
        batches = take(it, 3)
    assert batches == [[4, 3, 2], [1, 0, 0], [1, 2, 3]]
    # The fourth minibatch, prefetched, crosses the second epoch end at position 4.
    assert calls == [([0, 1, 2, 3, 4], 0), ([4, 3, 2, 1, 0], 3), ([0, 1, 2, 3, 4], 4)]


def growing_sampler(current_order, current_position):
    return numpy.arange(len(current_order) + int(current_position > 0))


def test_order_sampler_of_a_wrong_length_is_a_value_error():
    iterator = iterators.SerialIterator(list(range(4)), 3, order_sampler=growing_sampler)
    assert next(iterator) == [0, 1, 2]
    with pytest.raises(ValueError):
        next(iterator)


def test_multithread_iterator_reports_a_wrong_length_order_while_prefetching():
    with iterators.MultithreadIterator(list(range(4)), 3, order_sampler=growing_sampler) as it:
        with pytest.raises(ValueError):
            next(it)


def test_shuffle_with_order_sampler_is_a_value_error():
    sampler = iterators.ShuffleOrderSampler()
    with pytest.raises(ValueError, match="order_sampler"):
        iterators.SerialIterator([1, 2], 1, shuffle=True, order_sampler=sampler)
    with pytest.raises(ValueError, match="order_sampler"):
        iterators.MultithreadIterator([1, 2], 1, shuffle=False, order_sampler=sampler)


def test_shuffle_order_sampler_draws_from_the_given_random_state(make_iterator):
    reference = numpy.random.RandomState(21)
    expected = numpy.concatenate([reference.permutation(4) for _ in range(3)]).tolist()
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(21))
    iterator = make_iterator(list(range(4)), 3, order_sampler=sampler)
    assert sum(take(iterator, 4), []) == expected


def test_order_sampler_base_class_is_abstract():
    with pytest.raises(NotImplementedError):
        iterators.OrderSampler()(numpy.arange(3), 0)


def test_multithread_iterator_gives_the_serial_iterators_sequence():
    dataset = [numpy.full(2, i) for i in range(9)]
    numpy.random.seed(13)
    serial = iterators.SerialIterator(dataset, 4, shuffle=True)
    serial_batches = take(serial, 7)
    numpy.random.seed(13)
    with iterators.MultithreadIterator(dataset, 4, shuffle=True, n_threads=4) as threaded:
        threaded_batches = take(threaded, 7)
        assert threaded.epoch == serial.epoch
    for mine, theirs in zip(threaded_batches, serial_batches, strict=True):
        assert len(mine) == len(theirs)
        for left, right in zip(mine, theirs, strict=True):
            numpy.testing.assert_array_equal(left, right)


def saved_keys(path) -> set[str]:
    with numpy.load(path, allow_pickle=True) as npz:
        return set(npz.files)


@pytest.mark.parametrize("shuffle", [False, True])
def test_serial_iterator_serializes_chainers_keys(tmp_path, shuffle):
    iterator = iterators.SerialIterator(list(range(5)), 2, shuffle=shuffle)
    next(iterator)
    path = tmp_path / "iterator.npz"
    serializers.save_npz(str(path), iterator)
    keys = {"current_position", "epoch", "is_new_epoch", "previous_epoch_detail"}
    assert saved_keys(path) == (keys | {"order"} if shuffle else keys)


def test_multithread_iterator_serializes_chainers_keys(tmp_path):
    iterator = iterators.MultithreadIterator(list(range(5)), 2, shuffle=True)
    next(iterator)
    path = tmp_path / "iterator.npz"
    serializers.save_npz(str(path), iterator)
    iterator.finalize()
    assert saved_keys(path) == {
        "current_position", "epoch", "is_new_epoch", "_order", "previous_epoch_detail"}


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("steps", [0, 2, 3, 5])
def test_serial_iterator_resumes_from_a_snapshot(tmp_path, shuffle, steps):
    dataset = list(range(7))
    numpy.random.seed(17)
    original = iterators.SerialIterator(dataset, 3, shuffle=shuffle)
    take(original, steps)
    path = tmp_path / "iterator.npz"
    serializers.save_npz(str(path), original)
    random_state = numpy.random.get_state()
    expected = take(original, 6)

    numpy.random.seed(99)  # the restored iterator's own first order must be overwritten
    restored = iterators.SerialIterator(dataset, 3, shuffle=shuffle)
    serializers.load_npz(str(path), restored)
    assert restored.epoch == steps * 3 // 7
    assert restored.current_position == steps * 3 % 7
    assert restored.previous_epoch_detail == (
        None if steps == 0 else pytest.approx((steps - 1) * 3 / 7))
    numpy.random.set_state(random_state)
    assert take(restored, 6) == expected


@pytest.mark.parametrize("shuffle", [False, True])
def test_multithread_iterator_resumes_from_a_snapshot(tmp_path, shuffle):
    dataset = list(range(7))
    numpy.random.seed(23)
    with iterators.MultithreadIterator(dataset, 3, shuffle=shuffle) as original:
        take(original, 4)
        path = tmp_path / "iterator.npz"
        serializers.save_npz(str(path), original)
        # Saving dropped the prefetched minibatch, so the next one draws from here on.
        random_state = numpy.random.get_state()
        expected = take(original, 5)
    with iterators.MultithreadIterator(dataset, 3, shuffle=shuffle) as restored:
        serializers.load_npz(str(path), restored)
        assert (restored.epoch, restored.current_position) == (1, 5)
        numpy.random.set_state(random_state)
        assert take(restored, 5) == expected


def test_serial_iterator_loads_a_snapshot_with_the_old_order_key_and_no_previous_detail():
    numpy.random.seed(1)
    source = iterators.SerialIterator(list(range(6)), 4, shuffle=True)
    take(source, 2)
    snapshot = {"current_position": numpy.asarray(2), "epoch": numpy.asarray(1),
                "is_new_epoch": numpy.asarray(True), "_order": source._state.order.copy()}
    restored = iterators.SerialIterator(list(range(6)), 4, shuffle=True)
    serializers.NpzDeserializer(snapshot).load(restored)
    assert (restored.epoch, restored.current_position, restored.is_new_epoch) == (1, 2, True)
    # Guessed as one minibatch back: 1 + (2 - 4) / 6.
    assert restored.previous_epoch_detail == pytest.approx(1 + (2 - 4) / 6)
    assert next(restored) == source._state.order[2:6].tolist()


def test_iterator_base_class_protocol():
    base = chainer.dataset.Iterator()
    assert iter(base) is base
    with pytest.raises(NotImplementedError):
        next(base)
    with pytest.raises(NotImplementedError):
        base.next()
    base.finalize()
    base.finalize()
    assert base.serialize(None) is None
    with base as entered:
        assert entered is base


def test_next_method_is_the_python2_spelling(make_iterator):
    iterator = make_iterator([10, 20, 30], 2, shuffle=False)
    assert iterator.next() == [10, 20]
    assert iterator.next() == [30, 10]


def test_empty_dataset_cannot_be_iterated():
    serial = iterators.SerialIterator([], 2, shuffle=False)
    # Chainer takes epoch_detail first and divides by zero; ours says why, and is both.
    with pytest.raises(ZeroDivisionError, match="Epoch size must be positive"):
        next(serial)
    with iterators.MultithreadIterator([], 2, shuffle=False) as threaded:
        with pytest.raises(ValueError):  # the prefetch comes first
            next(threaded)
