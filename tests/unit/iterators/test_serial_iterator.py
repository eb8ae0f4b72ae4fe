"""Unit tests of SerialIterator and the shared epoch bookkeeping: random numbers drawn, the
serialized values, and the state after a non-repeating epoch."""

from __future__ import annotations

import hypothesis
import hypothesis.strategies as st
import numpy
import pytest

from chainer_compat import datasets, iterators, serializers
from chainer_compat.iterators.serial_iterator import _advance, _IteratorState


def test_index_order_draws_no_random_numbers():
    numpy.random.seed(0)
    state = numpy.random.get_state()
    iterator = iterators.SerialIterator(list(range(5)), 2, shuffle=False)
    for _ in range(6):
        next(iterator)
    assert iterator.order_sampler is None
    after = numpy.random.get_state()
    numpy.testing.assert_array_equal(after[1], state[1])
    assert after[2] == state[2]


def test_shuffle_draws_one_permutation_per_epoch_start():
    numpy.random.seed(1)
    expected = [numpy.random.permutation(4) for _ in range(4)]
    numpy.random.seed(1)
    iterator = iterators.SerialIterator(list(range(4)), 4)
    assert isinstance(iterator.order_sampler, iterators.ShuffleOrderSampler)
    for epoch in range(3):
        assert next(iterator) == expected[epoch].tolist()
        assert iterator.is_new_epoch and iterator.epoch == epoch + 1


def test_serialized_values_use_minus_one_for_no_previous_epoch_detail():
    iterator = iterators.SerialIterator(list(range(3)), 2, shuffle=True)
    saved = serializers.npz.serialize(iterator)
    assert float(saved["previous_epoch_detail"]) == -1.0
    assert int(saved["current_position"]) == 0 and not bool(saved["is_new_epoch"])
    assert sorted(saved["order"].tolist()) == [0, 1, 2]
    next(iterator)
    next(iterator)
    saved = serializers.npz.serialize(iterator)
    assert (int(saved["epoch"]), int(saved["current_position"])) == (1, 1)
    assert bool(saved["is_new_epoch"])
    assert float(saved["previous_epoch_detail"]) == pytest.approx(2 / 3)


def test_load_keeps_python_scalar_types(tmp_path):
    source = iterators.SerialIterator(list(range(3)), 2, shuffle=False)
    next(source)
    path = str(tmp_path / "it.npz")
    serializers.save_npz(path, source)
    restored = iterators.SerialIterator(list(range(3)), 2, shuffle=False)
    serializers.load_npz(path, restored)
    assert type(restored.current_position) is int and restored.current_position == 2
    assert type(restored.is_new_epoch) is bool
    assert type(restored.previous_epoch_detail) is float


def test_guessed_previous_epoch_detail_is_none_at_the_start():
    snapshot = {"current_position": numpy.asarray(0), "epoch": numpy.asarray(0),
                "is_new_epoch": numpy.asarray(False)}
    restored = iterators.SerialIterator(list(range(4)), 3, shuffle=False)
    serializers.NpzDeserializer(snapshot).load(restored)
    assert restored.previous_epoch_detail is None
    snapshot["current_position"] = numpy.asarray(1)
    serializers.NpzDeserializer(snapshot).load(restored)
    assert restored.previous_epoch_detail == 0.0  # one minibatch back is before 0: clipped


def test_finished_iterator_resumes_finished(tmp_path):
    source = iterators.SerialIterator([1, 2, 3], 2, repeat=False, shuffle=False)
    assert list(source) == [[1, 2], [3]]
    path = str(tmp_path / "done.npz")
    serializers.save_npz(path, source)
    restored = iterators.SerialIterator([1, 2, 3], 2, repeat=False, shuffle=False)
    serializers.load_npz(path, restored)
    assert restored.epoch == 1
    with pytest.raises(StopIteration):
        next(restored)


def test_advance_reads_several_epochs_in_one_minibatch():
    state = _IteratorState(1, 0, False, None)
    state, indices = _advance(state, 8, True, None, 3)
    assert indices.tolist() == [1, 2, 0, 1, 2, 0, 1, 2]
    assert state == _IteratorState(0, 3, True, None)
    assert indices.dtype == numpy.intp


def test_advance_refuses_an_empty_repeating_epoch_with_a_reason():
    with pytest.raises(ValueError, match="Epoch size must be positive.*empty"):
        _advance(_IteratorState(0, 0, False, None), 2, True, None, 0)


def test_order_sampler_length_message_names_both_lengths():
    calls = []

    def growing_after_the_first_call(order, position):
        calls.append(position)
        return numpy.arange(len(order) + (len(calls) > 1))

    iterator = iterators.SerialIterator(list(range(3)), 3,
                                        order_sampler=growing_after_the_first_call)
    with pytest.raises(ValueError, match="must return 3 indices, got 4"):
        next(iterator)


def test_batches_of_a_tuple_dataset_are_lists_of_tuples():
    pairs = datasets.TupleDataset(numpy.arange(3), numpy.arange(3) * 2)
    iterator = iterators.SerialIterator(pairs, 2, shuffle=False)
    assert next(iterator) == [(0, 0), (1, 2)]
    assert next(iterator) == [(2, 4), (0, 0)]


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(n=st.integers(1, 9), batch_size=st.integers(1, 12), steps=st.integers(1, 8),
                  shuffle=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_repeating_batches_are_consecutive_chunks_of_the_epoch_orders(n, batch_size, steps,
                                                                     shuffle, seed):
    epochs = steps * batch_size // n + 2
    numpy.random.seed(seed)
    stream = numpy.concatenate([numpy.random.permutation(n) if shuffle else numpy.arange(n)
                                for _ in range(epochs)]).tolist()
    for iterator_class in (iterators.SerialIterator, iterators.MultithreadIterator):
        numpy.random.seed(seed)
        with iterator_class(list(range(n)), batch_size, shuffle=shuffle) as iterator:
            for step in range(steps):
                batch = next(iterator)
                assert batch == stream[step * batch_size:(step + 1) * batch_size]
                consumed = (step + 1) * batch_size
                assert (iterator.epoch, iterator.current_position) == (consumed // n,
                                                                       consumed % n)
