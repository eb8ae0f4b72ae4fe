"""Snapshot writers: how :func:`snapshot` writes its files, in the calling thread
(``SimpleWriter``), in a new thread or process per snapshot (``ThreadWriter``,
``ProcessWriter``), or through one long-lived consumer (``ThreadQueueWriter``,
``ProcessQueueWriter``).

Layer 8: imports ``serializers.npz``.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat.serializers import npz

__all__ = ["ProcessQueueWriter", "ProcessWriter", "QueueWriter", "SimpleWriter",
           "StandardWriter", "ThreadQueueWriter", "ThreadWriter", "Writer"]

SaveFunction = Callable[..., Any]


def _process_context() -> Any:
    # compat: Chainer's process writers rely on fork, which lets the worker run the writer's
    # bound method and cleanup hooks without pickling them.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class _WriterProcess(multiprocessing.Process):
    """A ``multiprocessing.Process`` (as Chainer's ProcessWriter returns) that starts through
    :func:`_process_context`, so that it forks where the platform can, whatever the default
    start method is."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:  # noqa: N802 (the name multiprocessing looks up)
        return _process_context().Process._Popen(process_obj)


def _detached(target: Any) -> Any:
    """A copy of a snapshot dict whose NumPy arrays no longer share memory with the model."""
    if not isinstance(target, dict):
        return target
    copied = type(target)(target)
    for key, value in copied.items():
        if isinstance(value, numpy.ndarray):
            copied[key] = value.copy()
    return copied


class Writer:
    """Base class of snapshot writers: the snapshot extension calls
    ``writer(filename, outdir, serialized)`` each time it takes a snapshot."""

    def __init__(self) -> None:
        self._post_save_hooks: list[Callable[[], Any]] = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Writes ``target`` (the snapshot's dict of serialized values) to
        ``outdir/filename``."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(filename, outdir, target)")

    def __del__(self) -> None:
        self.finalize()

    def finalize(self) -> None:
        """Waits for pending writes; the trainer calls it at the end of training."""

    def save(self, filename: str, outdir: str, target: Any, savefun: SaveFunction,
             **kwds: Any) -> None:
        """Writes ``target`` with ``savefun`` to a temporary file in ``outdir``, moves it to
        ``outdir/filename`` and runs the post-save hooks (such as the removal of stale
        snapshots).

        Args:
            filename: The file name.
            outdir: The directory, created if missing.
            target: The object to save.
            savefun: Called as ``savefun(path, target, **kwds)``.
            kwds: Keyword arguments for ``savefun``.
        """
        os.makedirs(outdir, exist_ok=True)
        # Writing elsewhere first keeps a half-written file from ever having the final name.
        with tempfile.TemporaryDirectory(prefix="tmp" + filename, dir=outdir) as directory:
            temporary_path = os.path.join(directory, filename)
            savefun(temporary_path, target, **kwds)
            shutil.move(temporary_path, os.path.join(outdir, filename))
        self._post_save()

    def _add_cleanup_hook(self, hook_fun: Callable[[], Any]) -> None:
        """Adds a callable of no argument to run after each save."""
        self._post_save_hooks.append(hook_fun)

    def _post_save(self) -> None:
        for hook in self._post_save_hooks:
            hook()


class SimpleWriter(Writer):
    """Writes each snapshot in the calling thread; the default writer.

    Args:
        savefun: Called as ``savefun(path, target, **kwds)``; ``save_npz`` by default.
        kwds: Keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: SaveFunction = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Base class of writers that start a new worker (thread or process) for each snapshot;
    a snapshot first waits for the previous one's worker.

    Args:
        savefun: Called as ``savefun(path, target, **kwds)``; ``save_npz`` by default.
        kwds: Keyword arguments for ``savefun``.
    """

    _started = False
    _finalized = False
    _worker: Any = None

    def __init__(self, savefun: SaveFunction = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds
        self._started = False
        self._finalized = False

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        if self._started:
            self._worker.join()
            self._started = False
        self._filename = filename
        # Compat: Chainer hands the live arrays to the worker, which may then write values of
        # a later iteration; a copy pins the snapshot to the iteration that took it.
        self._worker = self.create_worker(filename, outdir, _detached(target), **self._kwds)
        self._worker.start()
        self._started = True

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        """Returns an unstarted worker (with ``start`` and ``join``) that saves ``target``.

        Args:
            filename: The file name.
            outdir: The output directory.
            target: The object to save.
            kwds: Keyword arguments for the ``savefun``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement create_worker(filename, outdir, target)")

    def finalize(self) -> None:
        """Waits for the last snapshot's worker."""
        if self._started:
            if not self._finalized:
                self._worker.join()
            self._started = False
        self._finalized = True


class ThreadWriter(StandardWriter):
    """Writes each snapshot in a new thread.

    Args:
        savefun: Called as ``savefun(path, target, **kwds)``; ``save_npz`` by default.
        kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename: str, outdir: str, target: Any,
                      **kwds: Any) -> threading.Thread:
        return threading.Thread(target=self.save, args=(filename, outdir, target, self._savefun),
                                kwargs=kwds)


class ProcessWriter(StandardWriter):
    """Writes each snapshot in a new process (forked where the platform can fork).

    Avoid it under MPI, where forking is unsafe; use :class:`ThreadWriter` there.

    Args:
        savefun: Called as ``savefun(path, target, **kwds)``; ``save_npz`` by default.
        kwds: Keyword arguments for ``savefun``.
    """

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        return _WriterProcess(
            target=self.save, args=(filename, outdir, target, self._savefun), kwargs=kwds)


class QueueWriter(Writer):
    """Base class of writers that put each snapshot on a queue read by one consumer started
    with the writer.

    Args:
        savefun: Saving function of the default task, a :class:`SimpleWriter`.
        task: A callable ``task(filename, outdir, target)`` to run for each snapshot instead.
    """

    _started = False
    _finalized = False
    _queue: Any = None
    _consumer: Any = None

    def __init__(self, savefun: SaveFunction = npz.save_npz, task: Any = None) -> None:
        super().__init__()
        self._task = self.create_task(savefun) if task is None else task
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        # Compat: a copy, as in StandardWriter.__call__.
        self._queue.put([self._task, filename, outdir, _detached(target)])

    def create_task(self, savefun: SaveFunction) -> Any:
        """Returns the task run for each snapshot: a :class:`SimpleWriter` of ``savefun``."""
        return SimpleWriter(savefun=savefun)

    def create_queue(self) -> Any:
        """Returns the queue (with ``put``, ``get``, ``task_done`` and ``join``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_queue()")

    def create_consumer(self, q: Any) -> Any:
        """Returns an unstarted worker that runs :meth:`consume` on ``q``."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_consumer(q)")

    def consume(self, q: Any) -> None:
        """Runs the queued tasks until it reads None."""
        while True:
            item = q.get()
            try:
                if item is None:
                    return
                # compat: indexed, as Chainer reads it, so any sequence of four works.
                item[0](item[1], item[2], item[3])
            finally:
                q.task_done()

    def finalize(self) -> None:
        """Waits until every queued snapshot is written, then stops the consumer."""
        if self._started:
            if not self._finalized:
                self._queue.put(None)
                self._queue.join()
                self._consumer.join()
            self._started = False
        self._finalized = True


class ThreadQueueWriter(QueueWriter):
    """Writes snapshots in one consumer thread fed through a :class:`queue.Queue`.

    Args:
        savefun: Saving function of the default task.
        task: A callable ``task(filename, outdir, target)`` to run instead.
    """

    def create_queue(self) -> queue.Queue[Any]:
        return queue.Queue()

    def create_consumer(self, q: Any) -> threading.Thread:
        return threading.Thread(target=self.consume, args=(q,))


class ProcessQueueWriter(QueueWriter):
    """Writes snapshots in one consumer process fed through a multiprocessing queue.

    Avoid it under MPI, where forking is unsafe; use :class:`ThreadQueueWriter` there.

    Args:
        savefun: Saving function of the default task.
        task: A callable ``task(filename, outdir, target)`` to run instead.
    """

    def create_queue(self) -> Any:
        return _process_context().JoinableQueue()

    def create_consumer(self, q: Any) -> Any:
        return _WriterProcess(target=self.consume, args=(q,))
