"""``TimerHook``: measures the time the forward method of every hooked link takes.

Layer 8: imports numpy and ``link_hook``. On a CuPy link the link's own ``xp`` gives the CUDA
events, so timing NumPy links never imports CuPy.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

import numpy

from chainer_compat.link_hook import (
    LinkHook,
    _ForwardPostprocessCallbackArgs,
    _ForwardPreprocessCallbackArgs,
)

_UNIT_FACTORS = {"sec": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}

# The host clock, in seconds: the highest-resolution monotonic one. Tests may replace it.
_clock = time.perf_counter


class _RunningCalls(threading.local):
    """Per-thread stack of the forward calls started and not yet finished."""

    def __init__(self) -> None:
        # Each entry is a host clock reading (NumPy) or a (start, stop) CUDA event pair.
        self.stack: list[Any] = []


def _choose_unit(seconds: float) -> tuple[float, str]:
    """Returns the factor and name of the largest unit in which ``seconds`` is at least 1."""
    factor = 1.0
    for unit in ("sec", "ms", "us"):
        if seconds * factor >= 1:
            return factor, unit
        factor *= 1000.0
    return factor, "ns"


class TimerHook(LinkHook):
    """Link hook that measures the elapsed time of every call of a link's forward method.

    Register it with ``with TimerHook() as hook:`` (every link the current thread calls) or with
    ``link.add_hook(hook)`` (one link), then read :meth:`summary` or call :meth:`print_report`::

          LinkName  ElapsedTime  Occurrence
            Linear     41.42sec        2100
               MLP     42.09sec         700

    Links call their children, so the times in :attr:`call_history` overlap: a chain's time
    includes its children's. Only the outermost calls count towards :meth:`total_time`. On a
    link whose ``xp`` is CuPy the time is measured with CUDA events on the current stream, and
    the hook waits for the stop event.

    Attributes:
        call_history: List of ``(link class name, elapsed seconds)`` pairs, one per call, in the
            order the calls finished.
    """

    name = "TimerHook"
    table = _UNIT_FACTORS

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._running = _RunningCalls()
        self._total_time = 0.0
        self._lock = threading.Lock()

    # Thread-local and lock state cannot be copied or pickled; a copy starts with none running.
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_running"], state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._running = _RunningCalls()
        self._lock = threading.Lock()

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        xp = args.link.xp
        if xp is numpy:
            self._running.stack.append(_clock())
        else:
            start = xp.cuda.Event()
            stop = xp.cuda.Event()
            start.record()
            self._running.stack.append((start, stop))

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        stack = self._running.stack
        started = stack.pop()
        if type(started) is not tuple:
            elapsed_time = _clock() - started
        else:
            start, stop = started
            stop.record()
            stop.synchronize()
            # CuPy reports milliseconds.
            elapsed_time = sys.modules["cupy"].cuda.get_elapsed_time(start, stop) / 1000
        self.call_history.append((type(args.link).__name__, elapsed_time))
        if not stack:
            with self._lock:
                self._total_time += elapsed_time

    def total_time(self) -> float:
        """Returns the total elapsed time in seconds of the outermost calls."""
        return self._total_time

    def summary(self) -> dict[str, dict[str, Any]]:
        """Returns the time spent per link class name.

        Returns:
            A dict, in order of first occurrence, from link class name to a dict with
            ``elapsed_time`` (seconds, children's calls included) and ``occurrence`` (call count).
        """
        summary: dict[str, dict[str, Any]] = {}
        for link_name, elapsed_time in self.call_history:
            record = summary.get(link_name)
            if record is None:
                record = summary[link_name] = {"elapsed_time": 0, "occurrence": 0}
            record["elapsed_time"] += elapsed_time
            record["occurrence"] += 1
        return summary

    def print_report(self, unit: str = "auto", file: TextIO = sys.stdout) -> None:
        """Prints the summary as a table of link name, elapsed time and occurrence.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'`` or ``'ns'``; ``'auto'`` picks one unit that
                suits the largest time, ``'auto_foreach'`` picks a unit per row.
            file: Text stream to write to.

        Raises:
            KeyError: If ``unit`` is not one of those.

        Compat:
            With no call recorded, ``'auto'`` prints the header only; Chainer raises ValueError.
        """
        summary = self.summary()
        auto_foreach = unit == "auto_foreach"
        factor = 1.0
        if unit == "auto":
            largest = max((r["elapsed_time"] for r in summary.values()), default=0.0)
            factor, unit = _choose_unit(largest)
        elif not auto_foreach:
            if unit not in _UNIT_FACTORS:
                raise KeyError(
                    f"unit must be one of 'sec', 'ms', 'us', 'ns', 'auto' or 'auto_foreach', "
                    f"got {unit!r}")
            factor = _UNIT_FACTORS[unit]
        rows = [["LinkName", "ElapsedTime", "Occurrence"]]
        for link_name, record in summary.items():
            seconds = record["elapsed_time"]
            if auto_foreach:
                factor, unit = _choose_unit(seconds)
            rows.append([link_name, f"{seconds * factor:3.2f}{unit}", str(record["occurrence"])])
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        template = "  ".join(f"{{:>{width}}}" for width in widths)
        for row in rows:
            file.write(template.format(*row))
            file.write("\n")
        if hasattr(file, "flush"):
            file.flush()
