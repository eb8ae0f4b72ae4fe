"""``chainer.training.trigger``: the old home of ``get_trigger`` and ``IntervalTrigger``.

Layer 8: re-exports from ``training.util`` and ``training.triggers``.
"""

from __future__ import annotations

from chainer_compat.training.triggers.interval_trigger import IntervalTrigger
from chainer_compat.training.util import _never_fire_trigger, get_trigger

__all__ = ["IntervalTrigger", "_never_fire_trigger", "get_trigger"]
