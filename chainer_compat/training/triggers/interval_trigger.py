"""``IntervalTrigger``: fires every ``period`` iterations or epochs.

Layer 8: imports only ``serializers._checked``.
"""

from __future__ import annotations

import warnings
from typing import Any

from chainer_compat.serializers import _checked

__all__ = ["IntervalTrigger"]

_UNITS = ("epoch", "iteration")


def _check_unit(unit: Any) -> None:
    if unit not in _UNITS:
        # compat: Chainer's wording.
        raise ValueError("Trigger unit must be either 'epoch' or 'iteration'.")


class IntervalTrigger:
    """Fires when the iteration count or the epoch progress crosses a multiple of ``period``.

    In ``'epoch'`` units the trigger compares ``updater.epoch_detail`` with its value at the
    previous call, so a fractional period such as ``(0.5, 'epoch')`` fires as soon as a
    half-epoch boundary is passed.

    Args:
        period: Length of the interval (int or float).
        unit: ``'iteration'`` or ``'epoch'``.

    Attributes:
        period: Length of the interval.
        unit: Its unit.
        count: Number of whole periods passed (set in ``'epoch'`` units).
    """

    def __init__(self, period: int | float, unit: str) -> None:
        _check_unit(unit)
        self.period = period
        self.unit = unit
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.0
        self.count = 0

    def __call__(self, trainer: Any) -> bool:
        """Returns whether the trainer's progress crossed an interval boundary since the last
        call."""
        updater = trainer.updater
        if self.unit == "epoch":
            epoch_detail = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                # Resumed from a snapshot without the saved value: ask the updater.
                previous = updater.previous_epoch_detail
            self.count = epoch_detail // self.period
            fire = previous // self.period != epoch_detail // self.period
        else:
            iteration = updater.iteration
            previous_iteration = self._previous_iteration
            if previous_iteration < 0:
                previous_iteration = iteration - 1
            fire = previous_iteration // self.period != iteration // self.period
        self._previous_iteration = updater.iteration
        if hasattr(updater, "epoch_detail"):
            self._previous_epoch_detail = updater.epoch_detail
        return bool(fire)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the progress seen at the previous call."""
        self._previous_iteration, self._previous_epoch_detail = _serialize_previous(
            serializer, type(self).__name__, self._previous_iteration,
            self._previous_epoch_detail)

    def get_training_length(self) -> tuple[int | float, str]:
        """Returns ``(period, unit)``: the length of training when used as a stop trigger."""
        return (self.period, self.unit)

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.period}, '{self.unit}')"


def _serialize_previous(serializer: Any, owner: str, previous_iteration: int,
                        previous_epoch_detail: float) -> tuple[int, float]:
    """Serializes the previous iteration and epoch_detail of a trigger; ``-1`` marks a value a
    loaded snapshot lacked (the trigger then asks the updater)."""
    # NOTE [all-or-nothing loading]: the check pass must return the values unchanged.
    checking = _checked.checks_only(serializer)
    unknown_iteration = previous_iteration if checking else -1
    unknown_epoch_detail = previous_epoch_detail if checking else -1.0
    try:
        previous_iteration = serializer("previous_iteration", previous_iteration)
    except KeyError:
        warnings.warn(
            f"The previous value of iteration is not saved. {owner} guesses it using current "
            "iteration. If this trigger is not called at every iteration, it may not work "
            "correctly.", stacklevel=2)
        previous_iteration = unknown_iteration
    try:
        previous_epoch_detail = serializer("previous_epoch_detail", previous_epoch_detail)
    except KeyError:
        warnings.warn(
            f"The previous value of epoch_detail is not saved. {owner} uses the value of "
            "trainer.updater.previous_epoch_detail. If this trigger is not called at every "
            "iteration, it may not work correctly.", stacklevel=2)
        previous_epoch_detail = unknown_epoch_detail
    return previous_iteration, previous_epoch_detail
