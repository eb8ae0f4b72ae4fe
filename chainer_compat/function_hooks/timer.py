"""``TimerHook``: measures the time every forward and backward of the hooked functions takes.

Layer 8: imports numpy, ``backend`` and ``function_hook``. CuPy is reached only through the arrays
the functions get, so timing NumPy code never imports it. ``_CallTimer`` also serves
``link_hooks.TimerHook``.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

import numpy

from chainer_compat import backend
from chainer_compat.function_hook import FunctionHook

_UNIT_FACTORS = {"sec": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}

# The host clock, in seconds: the highest-resolution monotonic one.
_clock = time.perf_counter


class _RunningCalls(threading.local):
    """Per-thread stack of the measurements started and not yet finished."""

    def __init__(self) -> None:
        # Each entry is a host clock reading (NumPy) or a (start, stop) CUDA event pair.
        self.stack: list[Any] = []


def _format_table(rows: list[list[str]], file: TextIO) -> None:
    """Writes rows as right-aligned columns separated by two spaces."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    template = "  ".join(f"{{:>{width}}}" for width in widths)
    for row in rows:
        file.write(template.format(*row))
        file.write("\n")
    if hasattr(file, "flush"):
        file.flush()


class _CallTimer:
    """Timing and report machinery shared by the function and link ``TimerHook``.

    A subclass calls :meth:`_start` before each timed call and :meth:`_finish` after it, and
    names its report's first column in ``_name_column``. Calls nest per thread; only the
    outermost ones count towards :meth:`total_time`.
    """

    table = _UNIT_FACTORS
    _name_column = "FunctionName"

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

    @staticmethod
    def _now() -> float:
        return _clock()

    def _start(self, xp: Any) -> None:
        """Starts timing a call on the array module ``xp``: host clock or CUDA events."""
        if xp is numpy:
            self._running.stack.append(self._now())
        else:
            start = xp.cuda.Event()
            stop = xp.cuda.Event()
            start.record()
            self._running.stack.append((start, stop))

    def _finish(self, name: str) -> None:
        """Ends the innermost running call and records it under ``name``."""
        stack = self._running.stack
        started = stack.pop()
        if type(started) is not tuple:
            elapsed_time = self._now() - started
        else:
            start, stop = started
            stop.record()
            stop.synchronize()
            # CuPy reports milliseconds.
            elapsed_time = sys.modules["cupy"].cuda.get_elapsed_time(start, stop) / 1000
        self.call_history.append((name, elapsed_time))
        if not stack:
            with self._lock:
                self._total_time += elapsed_time

    def total_time(self) -> float:
        """Returns the total elapsed time in seconds of the outermost calls."""
        return self._total_time

    def summary(self) -> dict[str, dict[str, Any]]:
        """Returns the time spent per recorded name (function name or link class name).

        Returns:
            A dict, in order of first occurrence, from name to a dict with ``elapsed_time``
            (seconds, nested calls included) and ``occurrence`` (call count).
        """
        summary: dict[str, dict[str, Any]] = {}
        for name, elapsed_time in self.call_history:
            record = summary.get(name)
            if record is None:
                record = summary[name] = {"elapsed_time": 0, "occurrence": 0}
            record["elapsed_time"] += elapsed_time
            record["occurrence"] += 1
        return summary

    @staticmethod
    def _choose_unit(seconds: float) -> tuple[float, str]:
        """Returns the factor and name of the largest unit in which ``seconds`` is at least 1."""
        factor = 1.0
        for unit in ("sec", "ms", "us"):
            if seconds * factor >= 1:
                return factor, unit
            factor *= 1000.0
        return factor, "ns"

    def print_report(self, unit: str = "auto", file: TextIO = sys.stdout) -> None:
        """Prints the summary as a table of name, elapsed time and occurrence.

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
            factor, unit = self._choose_unit(largest)
        elif not auto_foreach:
            if unit not in _UNIT_FACTORS:
                raise KeyError(
                    f"unit must be one of 'sec', 'ms', 'us', 'ns', 'auto' or 'auto_foreach', "
                    f"got {unit!r}")
            factor = _UNIT_FACTORS[unit]
        rows = [[self._name_column, "ElapsedTime", "Occurrence"]]
        for name, record in summary.items():
            seconds = record["elapsed_time"]
            if auto_foreach:
                factor, unit = self._choose_unit(seconds)
            rows.append([name, f"{seconds * factor:3.2f}{unit}", str(record["occurrence"])])
        _format_table(rows, file)


class TimerHook(FunctionHook, _CallTimer):
    """Function hook that measures the elapsed time of every forward and backward.

    Register it with ``with TimerHook() as hook:`` (every function of the current thread) or
    with ``function.add_hook(hook)`` (one function), then read :meth:`summary` or call
    :meth:`print_report`::

                   FunctionName  ElapsedTime  Occurrence
                 LinearFunction      1.24sec        3900
                           ReLU      0.59sec        2600

    On CuPy arrays the time is measured with CUDA events recorded on the current stream and the
    hook waits for the stop event, so it is the device time of the work the function queued.

    A function applied inside another one (for example by a backward written with Variables) is
    recorded on its own in :attr:`call_history`, but only the outermost calls count towards
    :meth:`total_time`, so no time is counted twice.

    Attributes:
        call_history: List of ``(function name, elapsed seconds)`` pairs, one per forward or
            backward call, in the order the calls finished.
    """

    name = "TimerHook"

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start(backend.get_array_module(*in_data))

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._finish(function._impl_name)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._start(backend.get_array_module(*(in_data + out_grad)))

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        self._finish(function._impl_name)
