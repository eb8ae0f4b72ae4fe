"""``chainer.training``: the Trainer, updaters, triggers and extensions.

Layer 8.
"""

from __future__ import annotations

from chainer_compat.training import extensions, trigger, triggers, updater, updaters, util
from chainer_compat.training._updater import Updater
from chainer_compat.training.extension import (
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_WRITER,
    Extension,
    make_extension,
)
from chainer_compat.training.trainer import Trainer
from chainer_compat.training.triggers.interval_trigger import IntervalTrigger
from chainer_compat.training.updaters.parallel_updater import ParallelUpdater
from chainer_compat.training.updaters.standard_updater import StandardUpdater
from chainer_compat.training.util import get_trigger

__all__ = ["PRIORITY_EDITOR", "PRIORITY_READER", "PRIORITY_WRITER", "Extension",
           "IntervalTrigger", "ParallelUpdater", "StandardUpdater", "Trainer", "Updater",
           "extensions", "get_trigger", "make_extension", "trigger", "triggers", "updater",
           "updaters", "util"]
