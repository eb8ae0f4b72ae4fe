"""Unit tests of chainer_compat.iterators.dali_iterator.DaliIterator over a fake pipeline: the
iterator only calls build(), epoch_size(), run() and batch_size, so no DALI is needed."""

from __future__ import annotations

import pytest

from chainer_compat.iterators.dali_iterator import DaliIterator


class FakePipeline:
    """Counts its calls; run() returns the number of the run."""

    def __init__(self, batch_size, epoch_size):
        self.batch_size = batch_size
        self._epoch_size = epoch_size
        self.builds = 0
        self.runs = 0

    def build(self):
        self.builds += 1

    def epoch_size(self):
        return {"Reader": self._epoch_size}

    def run(self):
        self.runs += 1
        return ("batch", self.runs)


class DictSerializer:
    def __init__(self, target=None, strict=True):
        self.target = {} if target is None else target
        self.saving = target is None
        self.strict = strict

    def __call__(self, key, value):
        if self.saving:
            self.target[key] = value
            return value
        if key not in self.target:
            raise KeyError(key)
        return self.target[key]


def make(batch_size=3, epoch_size=7, repeat=True):
    with pytest.warns(FutureWarning, match="DaliIterator"):
        return DaliIterator(FakePipeline(batch_size, epoch_size), repeat=repeat)


def test_construction_is_experimental_and_does_not_build():
    iterator = make()
    assert iterator.pipeline.builds == 0
    assert iterator.epoch_size == 1  # stand-in until the pipeline is built
    assert (iterator.epoch, iterator.current_position, iterator.is_new_epoch) == (0, 0, False)
    assert iterator.previous_epoch_detail is None
    assert iterator.repeat is True and iterator.batch_size == 3


def test_builds_once_and_returns_what_run_returns():
    iterator = make()
    assert next(iterator) == ("batch", 1)
    assert iterator.next() == ("batch", 2)
    assert iterator.pipeline.builds == 1
    assert iterator.epoch_size == 7


def test_repeating_positions_carry_over_epoch_ends():
    batch_size, epoch_size = 3, 7
    iterator = make(batch_size, epoch_size)
    position, epoch = 0, 0
    for _ in range(10):
        previous = epoch + position / epoch_size
        next(iterator)
        end = position + batch_size
        new_epoch = end >= epoch_size
        position = end - epoch_size if new_epoch else end
        epoch += new_epoch
        assert (iterator.current_position, iterator.epoch) == (position, epoch)
        assert iterator.is_new_epoch is new_epoch
        assert iterator.epoch_detail == pytest.approx(epoch + position / epoch_size)
        assert iterator.previous_epoch_detail == pytest.approx(previous)


def test_an_end_exactly_at_the_epoch_size_closes_the_epoch():
    iterator = make(batch_size=2, epoch_size=4)
    next(iterator)
    assert not iterator.is_new_epoch
    next(iterator)
    assert iterator.is_new_epoch and iterator.epoch == 1 and iterator.current_position == 0


def test_non_repeating_iterator_stops_after_the_first_epoch():
    iterator = make(batch_size=3, epoch_size=7, repeat=False)
    batches = list(iterator)
    assert len(batches) == 3
    assert iterator.epoch == 1 and iterator.current_position == 0
    with pytest.raises(StopIteration):
        next(iterator)
    assert iterator.pipeline.runs == 3


def test_reset_restarts_the_bookkeeping_but_not_the_build():
    iterator = make(repeat=False)
    list(iterator)
    iterator.reset()
    assert (iterator.epoch, iterator.current_position, iterator.is_new_epoch) == (0, 0, False)
    assert iterator.previous_epoch_detail is None
    next(iterator)
    assert iterator.pipeline.builds == 1


def test_serialize_round_trip():
    source = make()
    for _ in range(4):
        next(source)
    saver = DictSerializer()
    source.serialize(saver)
    assert set(saver.target) == {"current_position", "epoch", "is_new_epoch",
                                 "previous_epoch_detail"}
    target = make()
    next(target)  # builds the pipeline, so epoch_size is the real one
    target.serialize(DictSerializer(saver.target))
    assert (target.current_position, target.epoch, target.is_new_epoch) == (
        source.current_position, source.epoch, source.is_new_epoch)
    assert target.previous_epoch_detail == source.previous_epoch_detail


@pytest.mark.parametrize("steps", [1, 4])
def test_snapshot_without_previous_epoch_detail_is_estimated(steps):
    source = make()
    for _ in range(steps):
        next(source)
    saver = DictSerializer()
    source.serialize(saver)
    del saver.target["previous_epoch_detail"]
    target = make()
    next(target)
    target.serialize(DictSerializer(saver.target))
    estimate = target.epoch + (target.current_position - target.batch_size) / 7
    assert target.previous_epoch_detail == pytest.approx(max(estimate, 0.0))
