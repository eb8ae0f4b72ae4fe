"""Unit tests of the order samplers."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.iterators import OrderSampler, ShuffleOrderSampler


def test_shuffle_sampler_uses_the_global_state_at_call_time():
    sampler = ShuffleOrderSampler()
    numpy.random.seed(8)
    expected = numpy.random.permutation(6)
    numpy.random.seed(8)  # seeded after the sampler was made
    numpy.testing.assert_array_equal(sampler(numpy.arange(6), 0), expected)


def test_deep_copied_shuffling_iterator_replays_the_originals_shuffles():
    # Chainer's sampler holds the global RandomState object, so a deep copy (or a pickle) of an
    # iterator carries a snapshot of it and replays the original's orders, whatever the global
    # state does afterwards.
    import copy

    from chainer_compat.iterators import SerialIterator

    numpy.random.seed(0)
    original = SerialIterator(list(range(6)), 4)
    next(original)
    copied = copy.deepcopy(original)
    expected = [list(next(original)) for _ in range(3)]
    numpy.random.seed(123)
    assert [list(next(copied)) for _ in range(3)] == expected


def test_shuffle_sampler_ignores_the_current_order_values():
    sampler = ShuffleOrderSampler(numpy.random.RandomState(2))
    order = sampler(numpy.array([9, 9, 9]), 1)
    assert sorted(order.tolist()) == [0, 1, 2]


def test_order_sampler_message_names_the_method():
    with pytest.raises(NotImplementedError, match="must implement __call__"):
        OrderSampler()(numpy.arange(2), 0)
