"""``chainer_compat.optimizer_hooks``: hooks that change gradients before (or after) an update.

Layer 8: each hook lives in its own module and imports only backend.
"""

from __future__ import annotations

from chainer_compat.optimizer_hooks.gradient_clipping import GradientClipping
from chainer_compat.optimizer_hooks.gradient_hard_clipping import GradientHardClipping
from chainer_compat.optimizer_hooks.gradient_lars import GradientLARS
from chainer_compat.optimizer_hooks.gradient_noise import GradientNoise
from chainer_compat.optimizer_hooks.lasso import Lasso
from chainer_compat.optimizer_hooks.weight_decay import WeightDecay

__all__ = [
    "GradientClipping",
    "GradientHardClipping",
    "GradientLARS",
    "GradientNoise",
    "Lasso",
    "WeightDecay",
]
