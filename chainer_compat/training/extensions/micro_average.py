"""``MicroAverage``: reports ``sum(numerator) / sum(denominator)`` over an interval.

Layer 8: imports ``reporter`` and the ``training`` helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import reporter
from chainer_compat.training import extension, util

__all__ = ["MicroAverage"]


class MicroAverage(extension.Extension):
    """Sums two observed values over an interval and reports their ratio at its end.

    For example, with per-batch counts ``'main/correct'`` and ``'main/total'`` it reports the
    accuracy over all examples of the interval rather than the mean of batch accuracies.

    Args:
        numerator_key: Observation key of the numerator.
        denominator_key: Observation key of the denominator.
        result_key: Key the ratio is reported under.
        trigger: Interval of the reports.
    """

    priority = extension.PRIORITY_EDITOR

    def __init__(self, numerator_key: str, denominator_key: str, result_key: str,
                 trigger: Any = (1, "epoch")) -> None:
        self._trigger = util.get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator: Any = 0
        self._denominator: Any = 0

    def __call__(self, trainer: Any) -> None:
        """Adds the observed pair (skipped if either is missing); reports at interval ends."""
        observation = trainer.observation
        if not (self._numerator_key in observation and self._denominator_key in observation):
            return
        self._numerator += observation[self._numerator_key]
        self._denominator += observation[self._denominator_key]
        if self._trigger(trainer):
            result = float(self._numerator) / self._denominator
            self._numerator = 0
            self._denominator = 0
            reporter.report({self._result_key: result})

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the running sums."""
        self._numerator = serializer("_numerator", self._numerator)
        self._denominator = serializer("_denominator", self._denominator)
