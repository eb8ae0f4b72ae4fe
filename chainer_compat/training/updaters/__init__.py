"""Updaters: how the Trainer runs one training step.

Layer 8. Compat: ``MultiprocessParallelUpdater`` (NCCL across GPU processes) is not provided.
"""

from __future__ import annotations

from chainer_compat.training.updaters.parallel_updater import ParallelUpdater
from chainer_compat.training.updaters.standard_updater import StandardUpdater

__all__ = ["ParallelUpdater", "StandardUpdater"]
