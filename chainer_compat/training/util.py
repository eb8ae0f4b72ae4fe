"""``get_trigger``: turns ``None``, a ``(period, unit)`` tuple or a callable into a trigger.

Layer 8: imports ``training.triggers.interval_trigger``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat.training.triggers import interval_trigger

__all__ = ["get_trigger"]


def get_trigger(trigger: Any) -> Any:
    """Returns a trigger: a callable of the trainer that says whether something fires.

    Args:
        trigger: A callable (returned as is), ``None`` (a trigger that never fires), or a
            ``(period, unit)`` tuple given to :class:`IntervalTrigger`.

    Returns:
        The trigger.
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    return interval_trigger.IntervalTrigger(*trigger)


def _never_fire_trigger(trainer: Any) -> bool:
    return False
