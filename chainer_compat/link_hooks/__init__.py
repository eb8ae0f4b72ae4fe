"""Ready-made link hooks: timing of every link's forward.

Layer 8: each hook lives in its own module, as in Chainer (``chainer.link_hooks.timer``).
"""

from chainer_compat.link_hooks.timer import TimerHook

__all__ = ["TimerHook"]
