"""``TimeTrigger``: fires once every ``period`` seconds of the trainer's elapsed time.

Layer 8: imports only the standard library.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TimeTrigger"]


class TimeTrigger:
    """Fires when ``trainer.elapsed_time`` passes the next multiple of ``period``.

    Args:
        period: Interval in seconds.
    """

    def __init__(self, period: float) -> None:
        self._period = period
        self._next_time = self._period

    def __call__(self, trainer: Any) -> bool:
        """Returns whether the next deadline has passed, moving it one period on if so."""
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the next deadline."""
        self._next_time = serializer("next_time", self._next_time)
