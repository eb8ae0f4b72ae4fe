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

    Raises:
        TypeError: If ``trigger`` is none of these.
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    try:
        period, unit = trigger
    except (TypeError, ValueError):
        raise TypeError(
            "trigger must be a callable, None or a (period, unit) pair such as (1, 'epoch'), "
            f"got {trigger!r}") from None
    return interval_trigger.IntervalTrigger(period, unit)


def _never_fire_trigger(trainer: Any) -> bool:
    return False
