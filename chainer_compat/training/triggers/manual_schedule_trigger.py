"""``ManualScheduleTrigger``: fires at the listed iterations or epochs.

Layer 8: imports ``serializers._checked`` and ``training.triggers.interval_trigger`` helpers.
"""

from __future__ import annotations

import warnings
from typing import Any

from chainer_compat.serializers import _checked
from chainer_compat.training.triggers.interval_trigger import _check_unit, _serialize_previous

__all__ = ["ManualScheduleTrigger"]


class ManualScheduleTrigger:
    """Fires when the progress passes one of the given points.

    Args:
        points: A point or a list of points (iterations or, possibly fractional, epochs).
        unit: ``'iteration'`` or ``'epoch'``.

    Attributes:
        finished: ``True`` once the last point has fired; the trainer then skips the
            extension's ``initialize``.
    """

    def __init__(self, points: int | float | list[int | float], unit: str) -> None:
        _check_unit(unit)
        self.points = points if isinstance(points, list) else [points]
        self.unit = unit
        self.finished = False
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.0
        # Set when a loaded snapshot lacked ``finished``: recomputed at the next call.
        self._finished_unknown = False

    def __call__(self, trainer: Any) -> bool:
        """Returns whether a point lies in (previous progress, current progress]."""
        updater = trainer.updater
        if self.unit == "epoch":
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
        fire = any(previous < point <= current for point in self.points)
        # An empty schedule never fires and never finishes, as in Chainer.
        last_point_passed = bool(self.points) and current >= max(self.points)
        if self._finished_unknown:
            self._finished_unknown = False
            if last_point_passed:
                self.finished = True
        if fire and last_point_passed:
            self.finished = True
        self._previous_iteration = updater.iteration
        if hasattr(updater, "epoch_detail"):
            self._previous_epoch_detail = updater.epoch_detail
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the previous progress and the ``finished`` flag."""
        self._previous_iteration, self._previous_epoch_detail = _serialize_previous(
            serializer, type(self).__name__, self._previous_iteration,
            self._previous_epoch_detail)
        try:
            self.finished = bool(serializer("finished", self.finished))
        except KeyError:
            warnings.warn(
                "The flag of finished is not saved. ManualScheduleTrigger set the flag to "
                "`False` to force initialization and reset in next `__call__`.", stacklevel=2)
            if not _checked.checks_only(serializer):  # NOTE [all-or-nothing loading]
                self.finished = False
                self._finished_unknown = True
