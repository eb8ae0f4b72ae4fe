"""``BestValueTrigger`` and its ``MaxValueTrigger`` / ``MinValueTrigger``: fire when the mean of
an observed value over an interval is the best so far.

Layer 8: imports ``reporter`` and ``training.util``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat import reporter as reporter_module
from chainer_compat.training import util

__all__ = ["BestValueTrigger", "MaxValueTrigger", "MinValueTrigger"]


class BestValueTrigger:
    """Fires at the end of an interval when the interval's mean of ``key`` beats the best.

    Args:
        key: Observation key to watch, e.g. ``'validation/main/loss'``.
        compare: ``compare(best, new)`` returns ``True`` when ``new`` is better.
        trigger: Interval at which the mean is compared (anything :func:`get_trigger` takes).
    """

    def __init__(self, key: str, compare: Callable[[float, float], bool],
                 trigger: Any = (1, "epoch")) -> None:
        self._key = key
        self._best_value: float | None = None
        self._interval_trigger = util.get_trigger(trigger)
        self._init_summary()
        self._compare = compare

    def __call__(self, trainer: Any) -> bool:
        """Accumulates the observed value; at interval ends, returns whether it is the best."""
        observation = trainer.observation
        if self._key in observation:
            self._summary.add({self._key: observation[self._key]})
        if not self._interval_trigger(trainer):
            return False
        value = float(self._summary.compute_mean()[self._key])
        self._init_summary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def _init_summary(self) -> None:
        self._summary = reporter_module.DictSummary()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the interval trigger, the running summary and the best value."""
        self._interval_trigger.serialize(serializer["interval_trigger"])
        self._summary.serialize(serializer["summary"])
        self._best_value = serializer("best_value", self._best_value)


class MaxValueTrigger(BestValueTrigger):
    """Fires when the interval's mean of ``key`` is the largest so far.

    Args:
        key: Observation key to watch.
        trigger: Interval at which the mean is compared.
    """

    def __init__(self, key: str, trigger: Any = (1, "epoch")) -> None:
        super().__init__(key, lambda best, new: new > best, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fires when the interval's mean of ``key`` is the smallest so far.

    Args:
        key: Observation key to watch.
        trigger: Interval at which the mean is compared.
    """

    def __init__(self, key: str, trigger: Any = (1, "epoch")) -> None:
        super().__init__(key, lambda best, new: new < best, trigger)
