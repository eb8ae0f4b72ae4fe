"""Updaters: how the Trainer runs one training step.

Layer 8. Compat: ``ParallelUpdater`` and ``MultiprocessParallelUpdater`` are not provided.
"""

from __future__ import annotations

from chainer_compat.training.updaters.standard_updater import StandardUpdater

__all__ = ["StandardUpdater"]
