"""``chainer.training.updater``: the old home of ``Updater`` and ``StandardUpdater``.

Layer 8: re-exports.
"""

from __future__ import annotations

from chainer_compat.training._updater import Updater
from chainer_compat.training.updaters.parallel_updater import ParallelUpdater
from chainer_compat.training.updaters.standard_updater import StandardUpdater

__all__ = ["ParallelUpdater", "StandardUpdater", "Updater"]
