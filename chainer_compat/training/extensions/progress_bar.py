"""``ProgressBar``: draws the training progress (total, this epoch, speed) on a terminal.

Layer 8: imports ``training.extension``.
"""

from __future__ import annotations

import collections
import datetime
import sys
import time
from typing import IO, Any

from chainer_compat.training import extension

__all__ = ["ProgressBar"]


class ProgressBar(extension.Extension):
    """Redraws a four-line progress display every ``update_interval`` iterations.

    The lines are the total progress bar, the bar of the current epoch, the iteration and
    epoch counts, and the speed with the estimated time left. The display is redrawn in place
    with ANSI escape sequences (clear to the end of the screen, cursor up).

    Args:
        training_length: ``(length, unit)`` of the whole training; the stop trigger's
            ``get_training_length()`` when ``None``.
        update_interval: Iterations between redraws.
        bar_length: Width of the bars in characters.
        out: Stream to draw on.

    Compat: Chainer 7.8.1 ignores ``training_length``, ``bar_length`` and ``out`` (it always
    draws 50-character bars on stdout with the stop trigger's length); they are honoured here,
    as documented.
    """

    def __init__(self, training_length: tuple[int | float, str] | None = None,
                 update_interval: int = 100, bar_length: int = 50,
                 out: IO[str] = sys.stdout) -> None:
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        # (iteration, epoch_detail, time) of the recent redraws, to measure the speed.
        self._recent_timing: collections.deque[tuple[int, float, float]] = (
            collections.deque(maxlen=100))

    def __call__(self, trainer: Any) -> None:
        """Redraws the display when the iteration is a multiple of ``update_interval``."""
        if trainer.updater.iteration % self._update_interval == 0:
            lines = self._lines(trainer)
            self._out.write("\x1b[J" + "".join(lines) + f"\x1b[{len(lines)}A")
            self._flush()

    def finalize(self) -> None:
        """Clears the display."""
        self._out.write("\x1b[J")
        self._flush()

    def _flush(self) -> None:
        if hasattr(self._out, "flush"):
            self._out.flush()

    def _bar(self, title: str, rate: float) -> str:
        marks = "#" * int(rate * self._bar_length)
        return f"{title} [{marks}{'.' * (self._bar_length - len(marks))}] {rate:6.2%}\n"

    def _lines(self, trainer: Any) -> list[str]:
        updater = trainer.updater
        iteration = updater.iteration
        epoch = updater.epoch_detail
        if self._training_length is None:
            self._training_length = trainer.stop_trigger.get_training_length()
        length, unit = self._training_length  # type: ignore[misc]
        progress = iteration if unit == "iteration" else epoch
        lines = [self._bar("     total", min(progress / length, 1.0)),
                 self._bar("this epoch", epoch - int(epoch)),
                 f"{iteration:10} iter, {updater.epoch} epoch / {length} {unit}s\n"]
        now = time.time()
        self._recent_timing.append((iteration, epoch, now))
        old_iteration, old_epoch, old_time = self._recent_timing[0]
        span = now - old_time
        if span > 0:
            iteration_speed = (iteration - old_iteration) / span
            progress_speed = (progress - (old_iteration if unit == "iteration"
                                          else old_epoch)) / span
        else:
            iteration_speed = progress_speed = float("inf")
        remaining = (max((length - progress) / progress_speed, 0.0) if progress_speed > 0
                     else 0.0)
        lines.append(f"{iteration_speed:10.5g} iters/sec. Estimated time to finish: "
                     f"{datetime.timedelta(seconds=remaining)}.\n")
        return lines
