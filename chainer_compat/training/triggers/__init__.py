"""Triggers: callables of the trainer that decide when the loop stops or an extension runs.

Layer 8.
"""

from __future__ import annotations

from chainer_compat.training.triggers.early_stopping_trigger import EarlyStoppingTrigger
from chainer_compat.training.triggers.interval_trigger import IntervalTrigger
from chainer_compat.training.triggers.manual_schedule_trigger import ManualScheduleTrigger
from chainer_compat.training.triggers.minmax_value_trigger import (
    BestValueTrigger,
    MaxValueTrigger,
    MinValueTrigger,
)
from chainer_compat.training.triggers.once_trigger import OnceTrigger
from chainer_compat.training.triggers.time_trigger import TimeTrigger

__all__ = ["BestValueTrigger", "EarlyStoppingTrigger", "IntervalTrigger",
           "ManualScheduleTrigger", "MaxValueTrigger", "MinValueTrigger", "OnceTrigger",
           "TimeTrigger"]
