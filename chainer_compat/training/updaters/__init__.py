"""Updaters: how the Trainer runs one training step.

Layer 8. ``MultiprocessParallelUpdater`` needs CuPy with NCCL and one GPU per process.
"""

from __future__ import annotations

from chainer_compat.training.updaters.multiprocess_parallel_updater import (
    MultiprocessParallelUpdater,
)
from chainer_compat.training.updaters.parallel_updater import ParallelUpdater
from chainer_compat.training.updaters.standard_updater import StandardUpdater

__all__ = ["MultiprocessParallelUpdater", "ParallelUpdater", "StandardUpdater"]
