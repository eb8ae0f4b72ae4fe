"""``MultithreadIterator``: the minibatches of ``SerialIterator``, with the examples of the
next minibatch read by a pool of worker threads while the current one is in use.

Layer 8: imports ``dataset.iterator``, ``iterators.serial_iterator`` and ``serializers._checked``.
"""

from __future__ import annotations

import concurrent.futures
import operator
from typing import Any

import numpy

from chainer_compat.dataset.iterator import Iterator
from chainer_compat.iterators.serial_iterator import (
    OrderSamplerLike,
    _advance,
    _choose_order_sampler,
    _EpochBookkeeping,
    _IteratorState,
)
from chainer_compat.serializers import _checked


class MultithreadIterator(_EpochBookkeeping, Iterator):
    """Reads minibatches with worker threads, one minibatch ahead.

    The minibatches, and the epoch bookkeeping, are those of a :class:`SerialIterator`
    with the same arguments. After returning a minibatch the iterator already asks the
    threads for the next one, so the dataset is read (and a shuffled order drawn) one step
    early.

    Args:
        dataset: The dataset (``__getitem__`` with an integer, and ``__len__``).
        batch_size: The number of examples in a minibatch.
        repeat: Whether to loop over the dataset forever.
        shuffle: Whether to read each epoch in a fresh random order. None means True unless
            ``order_sampler`` is given.
        n_threads: The number of worker threads.
        order_sampler: A callable ``(current_order, current_position) -> next_order``; only
            with ``shuffle=None``.

    Raises:
        ValueError: If both ``shuffle`` and ``order_sampler`` are given.

    Attributes:
        dataset: The dataset.
        batch_size: The number of examples in a minibatch.
        n_threads: The number of worker threads.
        order_sampler: The order sampler in use, or None for index order.
    """

    # compat: class-level defaults so that finalize() from __del__ works even when __init__
    # failed before setting them.
    _pool: concurrent.futures.ThreadPoolExecutor | None = None
    _next: list[concurrent.futures.Future[Any]] | None = None
    _next_state: _IteratorState

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: bool | None = None, n_threads: int = 1,
                 order_sampler: OrderSamplerLike | None = None) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self._repeat = repeat
        self._shuffle = shuffle
        self.order_sampler = _choose_order_sampler(shuffle, order_sampler)
        self.n_threads = n_threads
        self._pool = None
        self.reset()

    def reset(self) -> None:
        """Goes back to the start of the first epoch, drawing a new order if shuffling."""
        order = None
        if self.order_sampler is not None:
            order = self.order_sampler(numpy.arange(len(self.dataset)), 0)
        self._state = _IteratorState(0, 0, False, order)
        self._previous_epoch_detail = -1.0
        self._next = None
        self._next_state = self._state

    def finalize(self) -> None:
        """Shuts the worker threads down; a later ``next`` starts new ones."""
        pool = self._pool
        self._next = None
        self._pool = None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def __next__(self) -> list[Any]:
        """Returns the next minibatch as a list of examples.

        Raises:
            StopIteration: After the first epoch when ``repeat`` is False.
        """
        if self._next is None:
            self._prefetch()
        batch = self._take()
        self._prefetch()
        return batch

    next = __next__

    @property
    def repeat(self) -> bool:
        """Whether the iterator loops over the dataset forever."""
        return self._repeat

    def serialize(self, serializer: Any) -> None:
        """Saves or restores the position, epoch, order and previous epoch detail.

        Keys: ``current_position``, ``epoch``, ``is_new_epoch``, ``_order`` (None when not
        shuffling) and ``previous_epoch_detail``. The prefetched minibatch is dropped and read
        again from the restored state.
        """
        # compat: not _serialize_state: Chainer's MultithreadIterator keeps the order under
        # ``_order`` (None included) and has no fallback key.
        current_position = serializer("current_position", self.current_position)
        epoch = serializer("epoch", self.epoch)
        is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        order = serializer("_order", self._state.order)
        previous_epoch_detail = serializer("previous_epoch_detail", self._previous_epoch_detail)
        if _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
            return
        self._state = _IteratorState(current_position, epoch, is_new_epoch, order)
        self._previous_epoch_detail = previous_epoch_detail
        if self._previous_epoch_detail is None:
            self._previous_epoch_detail = -1.0  # compat: older snapshots stored None
        # compat: dropped on saving too, as in Chainer, so the next minibatch is computed
        # (and a shuffled order drawn) again from the state just serialized.
        self._next = None

    def _prefetch(self) -> None:
        """Computes the next state and hands the next minibatch's reads to the threads."""
        self._next_state, indices = _advance(self._state, self.batch_size, self._repeat,
                                             self.order_sampler, len(self.dataset))
        if indices is None:
            self._next = None
            return
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.n_threads)
        self._next = [self._pool.submit(operator.getitem, self.dataset, index)
                      for index in indices]

    def _take(self) -> list[Any]:
        """Moves to the prefetched state and returns its minibatch, waiting for the reads."""
        self._previous_epoch_detail = self.epoch_detail
        self._state = self._next_state
        pending = self._next
        if pending is None:
            raise StopIteration
        self._next = None
        return [future.result() for future in pending]
