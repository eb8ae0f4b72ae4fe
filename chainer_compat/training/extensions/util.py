"""``ProgressBar``, the base of the in-place terminal displays of the training extensions.

Layer 8: imports only the standard library. Chainer keeps this helper at this path, and
libraries built on Chainer (chainer-chemistry's auto print report) import it from here.
"""

from __future__ import annotations

import collections
import sys
import time
from typing import IO

__all__ = ["ProgressBar"]


class ProgressBar:
    """A block of lines redrawn in place on a terminal; subclasses say what the lines are.

    Each :meth:`update` clears from the cursor to the end of the screen, writes the lines of
    :meth:`get_lines` and moves the cursor back up to where the block starts, so the next
    update overwrites it (ANSI escape sequences).

    Compat: Chainer also drives the Windows console API here (and defines its helpers
    ``erase_console`` and ``set_console_cursor_position`` on Windows only); this class writes
    ANSI sequences everywhere.

    Args:
        bar_length: Width in characters a subclass gives its bars (50 when None).
        out: Stream to draw on (``sys.stdout`` when None).
    """

    def __init__(self, bar_length: int | None = None, out: IO[str] | None = None) -> None:
        self._bar_length = 50 if bar_length is None else bar_length
        self._out = sys.stdout if out is None else out
        # (iteration, epoch_detail, time) of the recent updates, for the speed.
        self._recent_timing: collections.deque[tuple[float, float, float]] = (
            collections.deque(maxlen=100))

    def update_speed(self, iteration: float, epoch_detail: float) -> tuple[float, float]:
        """Records this moment and returns the speed over the recent updates.

        Returns:
            ``(iterations per second, epochs per second)``; both infinite when no time has
            passed since the oldest recorded update.
        """
        now = time.time()
        self._recent_timing.append((iteration, epoch_detail, now))
        first_iteration, first_epoch, first_time = self._recent_timing[0]
        span = now - first_time
        if span == 0:
            return float("inf"), float("inf")
        return (iteration - first_iteration) / span, (epoch_detail - first_epoch) / span

    def get_lines(self) -> list[str]:
        """The lines to draw, each ending with a newline; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lines()")

    def update(self) -> None:
        """Redraws the block in place."""
        self.erase_console()
        lines = self.get_lines()
        for line in lines:
            self._out.write(line)
        self.move_cursor_up(len(lines))
        self.flush()

    def close(self) -> None:
        """Clears the block."""
        self.erase_console()
        self.flush()

    def erase_console(self) -> None:
        """Clears from the cursor to the end of the screen."""
        self._out.write("\x1b[J")

    def move_cursor_up(self, n: int) -> None:
        """Moves the cursor up ``n`` lines, back to the start of the block."""
        self._out.write(f"\x1b[{n:d}A")

    def flush(self) -> None:
        """Flushes the stream, if it can be flushed."""
        if hasattr(self._out, "flush"):
            self._out.flush()
