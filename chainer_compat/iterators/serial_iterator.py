"""``SerialIterator``, which reads minibatches in the calling thread, and the epoch bookkeeping
(``_advance``, ``_EpochBookkeeping``) it shares with the other iterators.

Layer 8: imports ``dataset.iterator``, ``iterators._statemachine``,
``iterators.order_samplers``, ``serializers._checked`` and ``utils._assertions``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat.dataset.iterator import Iterator
from chainer_compat.iterators._statemachine import IteratorState
from chainer_compat.iterators.order_samplers import ShuffleOrderSampler
from chainer_compat.serializers import _checked
from chainer_compat.utils._assertions import ZeroDivisionValueError

OrderSamplerLike = Callable[[numpy.ndarray, int], numpy.ndarray]


# The state's class lives at Chainer's path; this name is what the other iterators import, and
# what pickles written by earlier versions of chainer_compat name.
_IteratorState = IteratorState


def _advance(state: _IteratorState, batch_size: int, repeat: bool,
             order_sampler: OrderSamplerLike | None,
             dataset_length: int) -> tuple[_IteratorState, numpy.ndarray | None]:
    """Returns the state after one minibatch and the dataset indices of that minibatch.

    A minibatch that reaches the end of an epoch continues into the next one when
    ``repeat`` (asking ``order_sampler`` for the next order at each epoch end) and stops
    there otherwise. The indices are None once a non-repeating iterator has finished.
    """
    position, epoch, _, order = state
    if not repeat and epoch > 0:
        return state, None
    epoch_size = dataset_length if order is None else len(order)
    if repeat and epoch_size == 0:
        # compat: Chainer's SerialIterator divides by the epoch size first (ZeroDivisionError),
        # its MultithreadIterator says this (ValueError): the error is both.
        raise ZeroDivisionValueError(
            "Epoch size must be positive for an iterator that repeats, got 0: the dataset "
            "(or the order) is empty")
    pieces = []
    end = position + batch_size
    is_new_epoch = False
    # NOTE [epoch end]: an end exactly at the epoch size also closes the epoch, so
    # is_new_epoch is set by the minibatch that reads the last example.
    while end >= epoch_size:
        pieces.append(_indices(order, position, epoch_size))
        if order is not None and order_sampler is not None:
            next_order = order_sampler(order, position)
            if len(next_order) != len(order):
                raise ValueError(
                    f"The size of order does not match the size of the previous order: an "
                    f"order sampler must return {len(order)} indices, got {len(next_order)}")
            order = next_order
        epoch += 1
        is_new_epoch = True
        position = 0
        if not repeat:
            end = 0
            break
        end -= epoch_size
    pieces.append(_indices(order, position, end))
    return _IteratorState(end, epoch, is_new_epoch, order), numpy.concatenate(pieces)


def _indices(order: numpy.ndarray | None, start: int, stop: int) -> numpy.ndarray:
    if order is None:
        return numpy.arange(start, stop, dtype=numpy.intp)
    return order[start:stop]


def _choose_order_sampler(shuffle: bool | None,
                          order_sampler: OrderSamplerLike | None) -> OrderSamplerLike | None:
    """Returns the sampler an iterator uses; a shuffling one unless ``shuffle`` is False."""
    if shuffle is None:
        return ShuffleOrderSampler() if order_sampler is None else order_sampler
    if order_sampler is not None:
        raise ValueError(
            "`shuffle` is not `None` and a custom `order_sampler` is set. Please set "
            "`shuffle` to `None` to use the custom order sampler.")
    return ShuffleOrderSampler() if shuffle else None


class _EpochBookkeeping:
    """The epoch properties of an iterator whose position is one :class:`_IteratorState`, and
    the snapshot of that state that ``SerialIterator`` and ``MultiprocessIterator`` share.

    Needs ``dataset``, ``batch_size``, ``_state`` and ``_previous_epoch_detail`` (-1 while
    there is none) on the class it is mixed into.
    """

    dataset: Any
    batch_size: int
    _state: _IteratorState
    _previous_epoch_detail: float

    @property
    def current_position(self) -> int:
        """The position in the current epoch's order of the next example to read."""
        return self._state.current_position

    @property
    def epoch(self) -> int:
        """The number of completed epochs."""
        return self._state.epoch

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last minibatch completed an epoch."""
        return self._state.is_new_epoch

    @property
    def epoch_detail(self) -> float:
        """Epochs completed, as a float: ``epoch + current_position / epoch size``."""
        return self.epoch + self.current_position / self._epoch_size

    @property
    def previous_epoch_detail(self) -> float | None:
        """``epoch_detail`` before the last minibatch; None before the first one."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    @property
    def _epoch_size(self) -> int:
        order = self._state.order
        return len(self.dataset) if order is None else len(order)

    def _serialize_state(self, serializer: Any,
                         order: numpy.ndarray | None) -> _IteratorState:
        """Saves or loads the position keys and ``order``; returns the state they describe.

        Keys: ``current_position``, ``epoch``, ``is_new_epoch`` and, unless ``order`` is None,
        ``order``, which a deserializer fills in place (from ``_order`` in older snapshots).
        """
        current_position = serializer("current_position", self.current_position)
        epoch = serializer("epoch", self.epoch)
        is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        if order is not None:
            try:
                serializer("order", order)
            except KeyError:
                serializer("_order", order)  # compat: the key of older snapshots
        return _IteratorState(current_position, epoch, is_new_epoch, order)

    def _serialize_previous_epoch_detail(self, serializer: Any) -> None:
        """Saves or loads ``previous_epoch_detail``, guessing it for older snapshots.

        Call it after the state is restored: the guess reads the restored position.
        """
        try:
            self._previous_epoch_detail = serializer(
                "previous_epoch_detail", self._previous_epoch_detail)
        except KeyError:
            if not _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                self._previous_epoch_detail = self._guess_previous_epoch_detail()

    def _guess_previous_epoch_detail(self) -> float:
        # compat: snapshots older than previous_epoch_detail; one minibatch back, as Chainer
        # estimates it, and -1 (None) at the very start.
        if self.epoch_detail <= 0:
            return -1.0
        guess = self.epoch + (self.current_position - self.batch_size) / self._epoch_size
        return max(guess, 0.0)


class SerialIterator(_EpochBookkeeping, Iterator):
    """Reads minibatches of a dataset in index order or in a shuffled order.

    Each minibatch is a list of ``batch_size`` examples. With ``repeat``, a minibatch that
    reaches the end of the dataset is completed with the first examples of the next epoch
    (in that epoch's order); without it, iteration stops after one epoch, whose last
    minibatch may be shorter.

    Args:
        dataset: The dataset (``__getitem__`` with an integer, and ``__len__``).
        batch_size: The number of examples in a minibatch.
        repeat: Whether to loop over the dataset forever.
        shuffle: Whether to read each epoch in a fresh random order (drawn with NumPy's
            global random state). None means True unless ``order_sampler`` is given.
        order_sampler: A callable ``(current_order, current_position) -> next_order`` called
            at the start and at each epoch end; only with ``shuffle=None``.

    Raises:
        ValueError: If both ``shuffle`` and ``order_sampler`` are given.

    Attributes:
        dataset: The dataset.
        batch_size: The number of examples in a minibatch.
        order_sampler: The order sampler in use, or None for index order.

    Compat:
        ``previous_epoch_detail`` is stored as -1 in snapshots while it is None, as Chainer
        does, because not every serializer can hold None.
    """

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: bool | None = None,
                 order_sampler: OrderSamplerLike | None = None) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self._repeat = repeat
        self._shuffle = shuffle
        self.order_sampler = _choose_order_sampler(shuffle, order_sampler)
        self.reset()

    def __next__(self) -> list[Any]:
        """Returns the next minibatch as a list of examples.

        Raises:
            StopIteration: After the first epoch when ``repeat`` is False.
        """
        state, indices = _advance(self._state, self.batch_size, self._repeat,
                                  self.order_sampler, len(self.dataset))
        if indices is None:
            self._previous_epoch_detail = self.epoch_detail  # compat: as Chainer, here too
            raise StopIteration
        # Read before moving on: a dataset that fails on an example leaves the position as
        # it was, so the minibatch is not skipped.
        batch = [self.dataset[index] for index in indices]
        self._previous_epoch_detail = self.epoch_detail
        self._state = state
        return batch

    next = __next__

    @property
    def repeat(self) -> bool:
        """Whether the iterator loops over the dataset forever."""
        return self._repeat

    def reset(self) -> None:
        """Goes back to the start of the first epoch, drawing a new order if shuffling."""
        order = None
        if self.order_sampler:
            order = self.order_sampler(numpy.arange(len(self.dataset)), 0)
        self._state = _IteratorState(0, 0, False, order)
        self._previous_epoch_detail = -1.0

    def serialize(self, serializer: Any) -> None:
        """Saves or restores the position, epoch, order and previous epoch detail.

        Keys: ``current_position``, ``epoch``, ``is_new_epoch``, ``order`` (only while
        shuffling) and ``previous_epoch_detail``. Snapshots that store the order as
        ``_order``, or lack ``previous_epoch_detail``, load too.
        """
        self._state = self._serialize_state(serializer, self._state.order)
        self._serialize_previous_epoch_detail(serializer)
