"""Ready-made link hooks: timing of every link's forward, spectral normalization and weight
standardization.

Layer 8: each hook lives in its own module, as in Chainer (``chainer.link_hooks.timer``).
"""

from chainer_compat.link_hooks.spectral_normalization import SpectralNormalization
from chainer_compat.link_hooks.timer import TimerHook
from chainer_compat.link_hooks.weight_standardization import WeightStandardization

__all__ = ["SpectralNormalization", "TimerHook", "WeightStandardization"]
