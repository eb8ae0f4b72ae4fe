"""``CupyMemoryProfileHook``: how much CuPy memory-pool memory each hooked function takes.

Layer 8: imports ``backends.cuda``, ``function_hook`` and the table printer of ``timer``. CuPy
is imported only when a hook is constructed (or ``CupyMemoryCumulativeHook`` is looked up),
never when this module is.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, ClassVar, TextIO

from chainer_compat.backends import cuda
from chainer_compat.function_hook import FunctionHook
from chainer_compat.function_hooks.timer import _format_table

_UNITS = ("B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB")


@functools.cache
def _cumulative_hook_class() -> type:
    """Builds ``CupyMemoryCumulativeHook`` on CuPy's MemoryHook (imports cupy)."""
    memory_hook = cuda.cupy.cuda.memory_hook.MemoryHook

    class CupyMemoryCumulativeHook(memory_hook):  # type: ignore[misc, valid-type]
        """CuPy memory hook that adds up the bytes requested from and acquired by the pool.

        Attributes:
            used_bytes: Bytes requested from the CuPy memory pool so far.
            acquired_bytes: Bytes the pool allocated on the device so far.
        """

        name = "CupyMemoryCumulativeHook"

        def __init__(self) -> None:
            self.used_bytes = 0
            self.acquired_bytes = 0

        def alloc_preprocess(self, **kwargs: Any) -> None:
            self.acquired_bytes += kwargs["mem_size"]

        def malloc_preprocess(self, **kwargs: Any) -> None:
            self.used_bytes += kwargs["mem_size"]

    CupyMemoryCumulativeHook.__module__ = __name__
    return CupyMemoryCumulativeHook


def __getattr__(name: str) -> Any:
    # The class derives from a CuPy class, so it exists only once cupy is asked for.
    if name == "CupyMemoryCumulativeHook":
        cuda.check_cuda_available()
        return _cumulative_hook_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class CupyMemoryProfileHook(FunctionHook):
    """Function hook that measures the CuPy memory-pool use of every forward and backward.

    Use it like :class:`~chainer.function_hooks.TimerHook`::

            FunctionName  UsedBytes  AcquiredBytes  Occurrence
          LinearFunction     5.16GB       179.98MB        3900
                    ReLU     0.99GB       458.97MB        2600

    *UsedBytes* is what the function requested from the CuPy memory pool, *AcquiredBytes* what
    the pool had to allocate from the device for it. Only allocations made in the thread that
    registered the hook are seen (CuPy memory hooks are per thread).

    Attributes:
        call_history: List of ``(function name, used bytes, acquired bytes, depth)`` tuples,
            where depth counts the hooked calls the call ran inside.

    Raises:
        RuntimeError: At construction, if CuPy is not installed or sees no CUDA device, or if
            the installed CuPy has no memory hooks.
    """

    name = "CupyMemoryProfileHook"
    _table: ClassVar[dict[str, float]] = {unit: 1024.0 ** i for i, unit in enumerate(_UNITS)}

    def __init__(self) -> None:
        cuda.check_cuda_available()
        try:
            hook_class = _cumulative_hook_class()
        except AttributeError as error:
            raise RuntimeError(
                "CupyMemoryProfileHook needs CuPy memory hooks (cupy.cuda.memory_hook), got a "
                f"CuPy without them ({error}): install a current CuPy") from error
        self.call_history: list[tuple[str, int, int, int]] = []
        self._memory_hook = hook_class()
        self._running_stack: list[tuple[int, int]] = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0
        self._registrations = 0

    def added(self, function: Any = None) -> None:
        # One CuPy hook serves every registration: entering it twice would raise in CuPy.
        if self._registrations == 0:
            self._memory_hook.__enter__()
        self._registrations += 1

    def deleted(self, function: Any = None) -> None:
        self._registrations -= 1
        if self._registrations == 0:
            self._memory_hook.__exit__()

    def _start(self) -> None:
        hook = self._memory_hook
        self._running_stack.append((hook.used_bytes, hook.acquired_bytes))

    def _finish(self, function: Any) -> None:
        start_used, start_acquired = self._running_stack.pop()
        used_bytes = self._memory_hook.used_bytes - start_used
        acquired_bytes = self._memory_hook.acquired_bytes - start_acquired
        depth = len(self._running_stack)
        self.call_history.append((function._impl_name, used_bytes, acquired_bytes, depth))
        if depth == 0:
            self._total_used_bytes += used_bytes
            self._total_acquired_bytes += acquired_bytes

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start()

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._finish(function)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._start()

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        self._finish(function)

    def total_used_bytes(self) -> int:
        """Returns the bytes the outermost calls requested from the CuPy memory pool."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Returns the bytes the pool allocated from the device for the outermost calls."""
        return self._total_acquired_bytes

    def summary(self) -> dict[str, dict[str, int]]:
        """Returns the memory use per function name.

        Returns:
            A dict, in order of first occurrence, from function name to a dict with
            ``used_bytes``, ``acquired_bytes`` and ``occurrence``. Nested calls are counted
            both on their own and inside the call that ran them.
        """
        summary: dict[str, dict[str, int]] = {}
        for function_name, used_bytes, acquired_bytes, _ in self.call_history:
            record = summary.get(function_name)
            if record is None:
                record = summary[function_name] = {
                    "used_bytes": 0, "acquired_bytes": 0, "occurrence": 0}
            record["used_bytes"] += used_bytes
            record["acquired_bytes"] += acquired_bytes
            record["occurrence"] += 1
        return summary

    @staticmethod
    def _choose_unit(size: float) -> tuple[float, str]:
        """Returns the divisor and name of the largest unit in which ``size`` is at least 1."""
        divisor = 1.0
        if size <= 0:
            return divisor, _UNITS[0]
        for unit in _UNITS[:-1]:
            if size < divisor * 1024:
                return divisor, unit
            divisor *= 1024
        return divisor, _UNITS[-1]

    def print_report(self, unit: str = "auto", file: TextIO = sys.stdout) -> None:
        """Prints the summary as a table of name, used bytes, acquired bytes and occurrence.

        Args:
            unit: One of ``'B'``, ``'KB'``, ..., ``'ZB'``; ``'auto'`` picks one unit per column
                that suits its largest value, ``'auto_foreach'`` picks a unit per value.
            file: Text stream to write to.

        Raises:
            KeyError: If ``unit`` is not one of those.
        """
        summary = self.summary()
        auto_foreach = unit == "auto_foreach"
        used_divisor = acquired_divisor = 1.0
        used_unit = acquired_unit = unit
        if unit == "auto":
            used_divisor, used_unit = self._choose_unit(
                max((r["used_bytes"] for r in summary.values()), default=0))
            acquired_divisor, acquired_unit = self._choose_unit(
                max((r["acquired_bytes"] for r in summary.values()), default=0))
        elif not auto_foreach:
            if unit not in self._table:
                raise KeyError(
                    f"unit must be one of {', '.join(_UNITS)}, 'auto' or 'auto_foreach', "
                    f"got {unit!r}")
            used_divisor = acquired_divisor = self._table[unit]
        rows = [["FunctionName", "UsedBytes", "AcquiredBytes", "Occurrence"]]
        for function_name, record in summary.items():
            used, acquired = record["used_bytes"], record["acquired_bytes"]
            if auto_foreach:
                used_divisor, used_unit = self._choose_unit(used)
                acquired_divisor, acquired_unit = self._choose_unit(acquired)
            rows.append([function_name, f"{used / used_divisor:3.2f}{used_unit}",
                         f"{acquired / acquired_divisor:3.2f}{acquired_unit}",
                         str(record["occurrence"])])
        _format_table(rows, file)
