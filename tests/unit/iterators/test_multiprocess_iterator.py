"""Unit tests of MultiprocessIterator: reads happen in worker processes, errors reach the
caller, a stalled dataset warns, finalize stops the pool, and pickling keeps the position."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import numpy
import pytest

from chainer_compat import iterators
from chainer_compat.iterators import multiprocess_iterator


class PidDataset:
    def __init__(self, size, failing_index=None, delay=0.0, slow_from=0, read_log=None):
        self.size = size
        self.failing_index = failing_index
        self.delay = delay
        self.slow_from = slow_from
        self.read_log = read_log

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if index == self.failing_index:
            raise KeyError(f"bad example {index}")
        if index >= self.slow_from:
            time.sleep(self.delay)
        if self.read_log is not None:  # one file per example read to the end
            (self.read_log / str(index)).touch()
        return (int(index), os.getpid())


def test_examples_after_the_first_minibatch_are_read_in_worker_processes():
    with iterators.MultiprocessIterator(PidDataset(8), 4, shuffle=False,
                                        n_processes=2) as iterator:
        next(iterator)
        batch = next(iterator)
        assert [index for index, _ in batch] == [4, 5, 6, 7]
        assert all(pid != os.getpid() for _, pid in batch)


def test_the_first_minibatch_is_read_here_unless_shared_mem_is_given():
    # NOTE [the first minibatch]: Chainer reads it in the calling process to size its shared
    # memory, before it forks the workers.
    with iterators.MultiprocessIterator(PidDataset(8), 4, shuffle=False,
                                        n_processes=1) as iterator:
        batch = next(iterator)
        assert batch == [(index, os.getpid()) for index in range(4)]
    with iterators.MultiprocessIterator(PidDataset(8), 4, shuffle=False, n_processes=1,
                                        shared_mem=1000) as iterator:
        batch = next(iterator)
        assert [index for index, _ in batch] == [0, 1, 2, 3]
        assert all(pid != os.getpid() for _, pid in batch)


class RandomDataset:
    """An augmentation-style dataset: each read draws from NumPy's global generator."""

    def __len__(self):
        return 6

    def __getitem__(self, index):
        return float(numpy.random.rand())


@pytest.mark.parametrize("dataset_timeout", [None, 30.0])
def test_the_first_minibatch_advances_this_process_generator_as_in_chainer(dataset_timeout):
    numpy.random.seed(0)
    expected = numpy.random.rand(3)  # two reads of the first minibatch, then the caller's
    numpy.random.seed(0)
    with iterators.MultiprocessIterator(RandomDataset(), 2, shuffle=False, n_processes=1,
                                        dataset_timeout=dataset_timeout) as iterator:
        assert next(iterator) == list(expected[:2])
        next(iterator)  # read by a worker forked after the first minibatch: no draw here
        assert numpy.random.rand() == expected[2]


def test_with_shared_mem_the_workers_read_every_minibatch():
    numpy.random.seed(0)
    expected = numpy.random.rand()
    numpy.random.seed(0)
    with iterators.MultiprocessIterator(RandomDataset(), 2, shuffle=False, n_processes=1,
                                        shared_mem=1000) as iterator:
        next(iterator)
        assert numpy.random.rand() == expected


def test_an_error_reading_the_first_minibatch_reaches_the_caller_once():
    reads = []

    class Failing:
        def __len__(self):
            return 4

        def __getitem__(self, index):
            reads.append(index)
            raise KeyError(f"bad example {index}")

    for timeout in (None, 30.0):
        reads.clear()
        iterator = iterators.MultiprocessIterator(Failing(), 2, shuffle=False, n_processes=1,
                                                  dataset_timeout=timeout)
        try:
            with pytest.raises(KeyError, match="bad example 0"):
                next(iterator)
            assert reads == [0]
        finally:
            iterator.finalize()


def test_a_reading_error_reaches_the_caller():
    iterator = iterators.MultiprocessIterator(PidDataset(6, failing_index=4), 2,
                                              shuffle=False, n_processes=1)
    try:
        assert [index for index, _ in next(iterator)] == [0, 1]
        assert [index for index, _ in next(iterator)] == [2, 3]
        with pytest.raises(KeyError, match="bad example 4"):
            next(iterator)
    finally:
        iterator.finalize()


def test_a_stalled_dataset_warns_and_still_delivers():
    iterator = iterators.MultiprocessIterator(PidDataset(2, delay=0.3), 2, shuffle=False,
                                              n_processes=1, dataset_timeout=0.05)
    try:
        with pytest.warns(iterators.MultiprocessIterator.TimeoutWarning, match="Stalled"):
            assert [index for index, _ in next(iterator)] == [0, 1]
    finally:
        iterator.finalize()


def test_finalize_stops_the_pool_and_forbids_reading():
    iterator = iterators.MultiprocessIterator(list(range(4)), 2, n_processes=1)
    next(iterator)
    pool = iterator._pool
    iterator.finalize()
    assert iterator._pool is None
    with pytest.raises(ValueError):  # the pool refuses work once terminated
        pool.map(abs, [1])
    with pytest.raises(RuntimeError, match="finalized"):
        next(iterator)


def test_finalize_lets_the_minibatches_in_flight_arrive_first(tmp_path):
    # Killing workers with reads in flight could leave the pool's result lock held by a dead
    # worker and hang finalize (NOTE [stopping the pool]): it waits for them instead.
    iterator = iterators.MultiprocessIterator(
        PidDataset(10, delay=0.2, slow_from=2, read_log=tmp_path), 2, shuffle=False,
        n_processes=1, n_prefetch=2)
    assert [index for index, _ in next(iterator)] == [0, 1]
    iterator.finalize()
    # n_prefetch + 1 minibatches were in flight (the one Chainer's prefetch thread is reading).
    assert sorted(int(path.name) for path in tmp_path.iterdir()) == list(range(8))


def test_reads_a_reset_dropped_count_as_in_flight(monkeypatch):
    # Closing the pool would wait for every read it was given, without a bound; the reads a
    # reset dropped get the same bounded wait as the pending ones.
    monkeypatch.setattr(multiprocess_iterator, "_FINISH_SECONDS", 0.1)
    iterator = iterators.MultiprocessIterator(PidDataset(8, delay=30.0, slow_from=2), 2,
                                              shuffle=False, n_processes=1)
    assert [index for index, _ in next(iterator)] == [0, 1]
    iterator.reset()  # drops the minibatches [2, 3] and [4, 5] in flight
    start = time.monotonic()
    iterator.finalize()
    assert time.monotonic() - start < 10.0


def test_a_script_that_never_finalizes_stops_its_pool_the_same_way_at_exit(tmp_path):
    # multiprocessing's exit handler would terminate the pool, with the risk of NOTE
    # [stopping the pool]; ours runs first and lets the reads in flight finish.
    script = (
        "import pathlib, sys, time\n"
        "from chainer_compat import iterators\n"
        "log = pathlib.Path(sys.argv[1])\n"
        "class Slow:\n"
        "    def __len__(self): return 8\n"
        "    def __getitem__(self, i):\n"
        "        if i >= 2: time.sleep(0.2)\n"
        "        (log / str(i)).touch()\n"
        "        return i\n"
        "iterator = iterators.MultiprocessIterator(Slow(), 2, shuffle=False, n_processes=1)\n"
        "assert next(iterator) == [0, 1]\n")
    completed = subprocess.run([sys.executable, "-c", script, str(tmp_path)], timeout=60)
    assert completed.returncode == 0
    assert sorted(int(path.name) for path in tmp_path.iterdir()) == [0, 1, 2, 3, 4, 5]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("child_drops_its_copy", [False, True])
def test_a_child_of_a_bare_fork_leaves_the_parents_pool_alone(child_drops_its_copy):
    # The child inherits the iterator and the exit handler but not the pool's threads: it
    # must exit at once. (It still prints multiprocessing's complaint from that module's own
    # exit handler.)
    script = (
        "import os, sys, time\n"
        "from chainer_compat import iterators\n"
        "class Slow:\n"
        "    def __len__(self): return 8\n"
        "    def __getitem__(self, i):\n"
        "        if i >= 2: time.sleep(0.5)\n"
        "        return i\n"
        "iterator = iterators.MultiprocessIterator(Slow(), 2, shuffle=False, n_processes=1)\n"
        "assert next(iterator) == [0, 1]\n"
        # The first minibatch is read here (NOTE [the first minibatch]), so the worker has just
        # started: let it take its read first. The child's multiprocessing exit handler
        # terminates the parent's workers; one killed while it waits for work holds the task
        # queue's lock for good, and the worker the pool starts in its place then never exits.
        "time.sleep(0.2)\n"
        "start = time.monotonic()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    if sys.argv[1] == 'drop':\n"
        "        del iterator  # finalizes the child's copy\n"
        "    sys.exit(0)\n"
        "_, status = os.waitpid(child, 0)\n"
        "print(os.waitstatus_to_exitcode(status), round(time.monotonic() - start, 2),\n"
        "      flush=True)\n"
        # multiprocessing's own exit handler in the child has sent the parent's pool its
        # stop messages through the shared queues, so the parent skips its own clean-up.
        "os._exit(0)\n")
    mode = "drop" if child_drops_its_copy else "keep"
    completed = subprocess.run([sys.executable, "-W", "ignore", "-c", script, mode],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    exit_code, seconds = completed.stdout.split()
    assert exit_code == "0"
    assert float(seconds) < 0.4  # the parent's reads take 0.5 s and more


def test_finalize_stops_a_stalled_dataset_after_a_bound(monkeypatch, tmp_path):
    monkeypatch.setattr(multiprocess_iterator, "_FINISH_SECONDS", 0.1)
    iterator = iterators.MultiprocessIterator(
        PidDataset(4, delay=30.0, slow_from=2, read_log=tmp_path), 2, shuffle=False,
        n_processes=1)
    assert [index for index, _ in next(iterator)] == [0, 1]
    start = time.monotonic()
    iterator.finalize()
    assert time.monotonic() - start < 10.0
    assert sorted(int(path.name) for path in tmp_path.iterdir()) == [0, 1]


@pytest.mark.slow
def test_finalizing_with_reads_in_flight_never_hangs():
    # A soak: finalize right after a minibatch, large examples still on their way back. With
    # Pool.terminate() alone this hung within a few dozen iterators.
    script = (
        "import numpy\n"
        "from chainer_compat import iterators\n"
        "class Big:\n"
        "    def __len__(self): return 64\n"
        "    def __getitem__(self, i): return numpy.full(100_000, i, numpy.float32)\n"
        "for _ in range(150):\n"
        "    with iterators.MultiprocessIterator(Big(), 16, shuffle=False, n_processes=2,\n"
        "                                        n_prefetch=2) as iterator:\n"
        "        next(iterator)\n")
    completed = subprocess.run([sys.executable, "-c", script], timeout=300)
    assert completed.returncode == 0


def test_pickle_keeps_the_position_and_order():
    numpy.random.seed(5)
    iterator = iterators.MultiprocessIterator(list(range(6)), 2, n_processes=1, n_prefetch=2)
    try:
        next(iterator)
        restored = pickle.loads(pickle.dumps(iterator))
        try:
            assert restored.current_position == 2
            numpy.testing.assert_array_equal(restored._state.order, iterator._state.order)
            assert next(restored) == next(iterator)
        finally:
            restored.finalize()
    finally:
        iterator.finalize()


def test_serialize_without_shuffle_stores_no_order():
    from chainer_compat.serializers import DictionarySerializer, NpzDeserializer

    iterator = iterators.MultiprocessIterator(list(range(5)), 2, shuffle=False,
                                              n_processes=1, n_prefetch=3)
    try:
        next(iterator)
        saved = DictionarySerializer()
        iterator.serialize(saved)
        assert "order" not in saved.target
        next(iterator)
        iterator.serialize(NpzDeserializer(saved.target))
        assert next(iterator) == [2, 3]
    finally:
        iterator.finalize()
