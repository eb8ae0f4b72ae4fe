"""``MultiprocessIterator``: the minibatches of ``SerialIterator``, with the examples of the
next ``n_prefetch`` minibatches read by a pool of worker processes.

Layer 8: imports ``dataset.iterator``, ``iterators.serial_iterator`` and ``serializers._checked``.
"""

from __future__ import annotations

import atexit
import collections
import multiprocessing
import multiprocessing.pool
import os
import threading
import time
import warnings
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

__all__ = ["MultiprocessIterator"]

# The dataset, in each worker process; set once by the pool's initializer.
_worker_dataset: Any = None

# NOTE [the first minibatch]
# compat: with ``shared_mem`` None (the default), Chainer reads the first minibatch in the
# calling process, to size its shared memory, and forks the workers only afterwards. So the
# first minibatch's reads run here (a dataset that draws random numbers advances this
# process's generators, and the workers start from the advanced state), and seeded runs that
# also draw in the main process (dropout, a GAN's noise) get Chainer's numbers. With
# ``shared_mem`` given, the workers read every minibatch, as in Chainer.
#
# NOTE [stopping the pool]
# Pool.terminate() kills the workers with SIGTERM. A worker killed while it sends a result holds
# the result queue's lock for good, and the pool's task thread, which puts a last message on
# that queue while terminate() waits for it, blocks forever: finalize() hung. (Finalizing
# right after a minibatch, with the next ones in flight, hit it in about one run in fifteen.)
# So finalize() first lets the minibatches in flight arrive, then closes the pool, whose
# workers exit on their own. Only a dataset still reading after this many seconds gets the
# terminate() (and its small risk). A script that never finalizes its iterator met the same
# hang at exit, in multiprocessing's exit handler; each pool is stopped this way first.
_FINISH_SECONDS = 10.0


def _set_worker_dataset(dataset: Any) -> None:
    global _worker_dataset
    _worker_dataset = dataset


def _read_example(index: int) -> Any:
    return _worker_dataset[index]


def _process_context() -> Any:
    # compat: Chainer's pool relies on fork, so that datasets need not be picklable (a
    # TransformDataset with a lambda, say) and are shared with the workers, not copied.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class MultiprocessIterator(_EpochBookkeeping, Iterator):
    """Reads minibatches with worker processes, ``n_prefetch`` (+1) minibatches ahead.

    The minibatches, and the epoch bookkeeping, are those of a :class:`SerialIterator`
    with the same arguments; examples come back as copies made in the workers, except the
    first minibatch's, read in this process when ``shared_mem`` is None (NOTE [the first
    minibatch]). The pool starts at the first minibatch and stops at :meth:`finalize` (or
    when the iterator is garbage collected). Use it for datasets whose ``__getitem__`` does
    heavy work in Python (decoding, augmentation); on platforms that cannot fork, the dataset
    must be picklable.

    Args:
        dataset: The dataset (``__getitem__`` with an integer, and ``__len__``).
        batch_size: The number of examples in a minibatch.
        repeat: Whether to loop over the dataset forever.
        shuffle: Whether to read each epoch in a fresh random order. None means True unless
            ``order_sampler`` is given.
        n_processes: The number of worker processes; the number of CPUs when None or 0.
        n_prefetch: How many minibatches to read ahead (at least 1); as with Chainer's
            prefetch thread, one more is being read while those wait.
        shared_mem: The size of Chainer's shared-memory buffer per example. None (Chainer
            sizes the buffer from the first minibatch) reads the first minibatch in this
            process; a size has the workers read every minibatch. No buffer is used.
        order_sampler: A callable ``(current_order, current_position) -> next_order``; only
            with ``shuffle=None``.
        dataset_timeout: Seconds to wait for a minibatch before each
            :class:`MultiprocessIterator.TimeoutWarning`; None to never warn.
        maxtasksperchild: Examples a worker reads before it is replaced; None for no limit.

    Raises:
        ValueError: If both ``shuffle`` and ``order_sampler`` are given.

    Compat:
        Chainer copies NumPy arrays through a shared-memory buffer sized by ``shared_mem``;
        here the worker pool pickles each example back, so ``shared_mem`` only decides where
        the first minibatch is read.
    """

    class TimeoutWarning(RuntimeWarning):
        """Warned when the dataset has not delivered a minibatch within ``dataset_timeout``."""

    # compat: class-level defaults so that finalize() from __del__ works even when __init__
    # failed before setting them.
    _finalized = False
    _pool: multiprocessing.pool.Pool | None = None
    _pending: collections.deque[tuple[_IteratorState, Any]] | None = None
    _stopper: _PoolStopper | None = None
    _prefetch_state: _IteratorState

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: bool | None = None, n_processes: int | None = None,
                 n_prefetch: int = 1, shared_mem: int | None = None,
                 order_sampler: OrderSamplerLike | None = None,
                 dataset_timeout: float | None = 30.0,
                 maxtasksperchild: int | None = None) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        self.shuffle = shuffle
        self.n_processes = n_processes or os.cpu_count() or 1
        self.n_prefetch = max(n_prefetch, 1)
        self.shared_mem = shared_mem
        self.dataset_timeout = dataset_timeout
        self._maxtasksperchild = maxtasksperchild
        self.order_sampler = _choose_order_sampler(shuffle, order_sampler)
        self._pending = collections.deque()
        self.reset()

    def __next__(self) -> list[Any]:
        """Returns the next minibatch as a list of examples.

        Raises:
            StopIteration: After the first epoch when ``repeat`` is False.
            RuntimeError: If the iterator was finalized.
        """
        if self._finalized or self._pending is None:
            raise RuntimeError(
                "MultiprocessIterator must not be finalized to read minibatches, got a "
                "finalized one: create a new iterator")
        if self._pool is None and self.shared_mem is None:
            # The first minibatch, read here: NOTE [the first minibatch].
            self._prefetch_state, indices = _advance(
                self._prefetch_state, self.batch_size, self.repeat, self.order_sampler,
                len(self.dataset))
            state = self._prefetch_state
            batch = None if indices is None else self._read_here(indices.tolist())
        else:
            self._prefetch()
            state, result = self._pending.popleft()
            batch = None if result is None else self._wait(result)
        if self._stopper is not None:
            self._stopper.forget_done()
        self._previous_epoch_detail = self.epoch_detail
        self._state = state
        self._prefetch()
        if batch is None:
            raise StopIteration
        return batch

    next = __next__

    def _prefetch(self) -> None:
        """Asks the workers for minibatches until ``n_prefetch + 1`` are pending.

        compat: Chainer's prefetch thread keeps ``n_prefetch`` minibatches in its queue and
        has already drawn the order of the next one while it waits for room, so a new epoch's
        shuffle comes from NumPy's global generator that much earlier; one more pending
        minibatch draws it at the same point, so seeded runs that also draw random numbers
        in the main thread (dropout) stay Chainer's.
        """
        pending = self._pending
        if pending is None:  # finalized
            return
        stopper = self._stopper
        if self._pool is None or stopper is None:
            self._pool = _process_context().Pool(
                self.n_processes, initializer=_set_worker_dataset, initargs=(self.dataset,),
                maxtasksperchild=self._maxtasksperchild)
            stopper = self._stopper = _PoolStopper(self._pool)
            # At exit, stop it our way before multiprocessing's own exit handler (registered
            # earlier, so run later) would terminate it (NOTE [stopping the pool]).
            atexit.register(stopper)
        while len(pending) <= self.n_prefetch:
            self._prefetch_state, indices = _advance(
                self._prefetch_state, self.batch_size, self.repeat, self.order_sampler,
                len(self.dataset))
            result = None
            if indices is not None:
                result = self._pool.map_async(_read_example, indices.tolist())
                stopper.forget_done()
                stopper.in_flight.append(result)
            pending.append((self._prefetch_state, result))

    def _wait(self, result: Any) -> list[Any]:
        while True:
            try:
                return list(result.get(self.dataset_timeout))
            except multiprocessing.TimeoutError:
                _warn_stalled()

    def _read_here(self, indices: list[int]) -> list[Any]:
        """Reads a minibatch in this process, warning once if it takes ``dataset_timeout``."""
        dataset = self.dataset
        if self.dataset_timeout is None:
            return [dataset[index] for index in indices]
        # compat: as Chainer, in a thread, so that a stalled dataset is reported.
        outcome: list[Any] = []

        def read() -> None:
            try:
                outcome.append([dataset[index] for index in indices])
            except BaseException as error:  # raised again in the calling thread
                outcome.append(error)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(self.dataset_timeout)
        if reader.is_alive():
            _warn_stalled()
        reader.join()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def finalize(self) -> None:
        """Stops the worker processes; the iterator cannot be used afterwards.

        The minibatches being read are let finish first, for up to 10 seconds, so that no
        worker is killed while it hands back an example (NOTE [stopping the pool]).
        """
        if self._finalized:
            return
        stopper = self._stopper
        if stopper is not None and stopper.pool is not None:  # not already stopped at exit
            stopper()
            # Only once it is done: a second Ctrl-C during the wait leaves it for the exit.
            atexit.unregister(stopper)
        self._pool = None
        self._stopper = None
        self._pending = None
        self._finalized = True

    def __copy__(self) -> MultiprocessIterator:
        # compat: Chainer's copy: a new iterator (and pool) at the same position.
        other = MultiprocessIterator(
            self.dataset, self.batch_size, self.repeat, shuffle=None,
            n_processes=self.n_processes, n_prefetch=self.n_prefetch,
            shared_mem=self.shared_mem, order_sampler=self.order_sampler,
            dataset_timeout=self.dataset_timeout, maxtasksperchild=self._maxtasksperchild)
        other._reset_state(self._state)
        other._previous_epoch_detail = self._previous_epoch_detail
        return other

    def reset(self) -> None:
        """Goes back to the start of the first epoch, drawing a new order if shuffling.

        Raises:
            NotImplementedError: If the iterator was finalized.
        """
        order = None
        if self.order_sampler:
            order = self.order_sampler(numpy.arange(len(self.dataset)), 0)
        self._reset_state(_IteratorState(0, 0, False, order))
        self._previous_epoch_detail = -1.0

    def _reset_state(self, state: _IteratorState) -> None:
        """Moves to ``state``, dropping the minibatches read ahead."""
        if self._finalized:
            # compat: Chainer's type and wording.
            raise NotImplementedError(
                "Reset of finalized MultiProcessIterator is currently not supported.")
        self._state = state
        self._prefetch_state = state
        if self._pending is not None:
            self._pending.clear()

    def serialize(self, serializer: Any) -> None:
        """Saves or restores the position, epoch, order and previous epoch detail, under the
        keys :class:`SerialIterator` uses; minibatches read ahead are dropped."""
        order = self._state.order
        if order is not None:
            # A copy: the deserializer fills it in place, and the old order may be in use.
            order = order.copy()
        state = self._serialize_state(serializer, order)
        if not _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
            self._reset_state(state)
        self._serialize_previous_epoch_detail(serializer)

    def __getstate__(self) -> dict[str, Any]:
        # The pool and the minibatches read ahead stay behind; the copy restarts them.
        state = self.__dict__.copy()
        state["_pool"] = None
        state["_stopper"] = None
        state["_pending"] = collections.deque()
        state["_prefetch_state"] = state["_state"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def _warn_stalled() -> None:
    # compat: Chainer's wording; it keeps waiting after the warning.
    warnings.warn(
        "Stalled dataset is detected. See the documentation of "
        "MultiprocessIterator for common causes and workarounds:\n"
        "https://docs.chainer.org/en/stable/reference/generated/"
        "chainer.iterators.MultiprocessIterator.html",
        MultiprocessIterator.TimeoutWarning, stacklevel=4)


class _PoolStopper:
    """Stops one pool, once, the way NOTE [stopping the pool] says; the exit handler too.

    Only in the process that made the pool: a child made by a bare ``os.fork`` inherits the
    iterator and the exit handlers, but not the pool's threads, and must leave it alone.
    """

    def __init__(self, pool: multiprocessing.pool.Pool) -> None:
        self.pool: multiprocessing.pool.Pool | None = pool
        self.pid = os.getpid()
        # Every read asked of the pool and not known to be done, those a reset dropped too.
        self.in_flight: list[Any] = []

    def forget_done(self) -> None:
        """Drops the reads that are done (and the minibatches they hold)."""
        self.in_flight[:] = [read for read in self.in_flight if not read.ready()]

    def __call__(self) -> None:
        pool = self.pool
        if pool is None or os.getpid() != self.pid:
            return
        _stop(pool, self.in_flight)
        self.pool = None  # after the wait: an interrupted stop is tried again at exit
        self.in_flight.clear()


def _stop(pool: multiprocessing.pool.Pool, results: list[Any]) -> None:
    """Stops ``pool`` once the reads in flight, ``results``, are done (NOTE [stopping the
    pool])."""
    deadline = time.monotonic() + _FINISH_SECONDS
    for result in results:
        result.wait(max(deadline - time.monotonic(), 0.0))
    if all(result.ready() for result in results):
        pool.close()
    else:
        pool.terminate()
    pool.join()
