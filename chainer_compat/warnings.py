"""``chainer.warnings``: the warning categories Chainer code filters on.

Layer 0: imports nothing from chainer_compat.
"""

from __future__ import annotations

__all__ = ["PerformanceWarning"]


class PerformanceWarning(RuntimeWarning):
    """Warns that a call works, but slower than it could (for example on a fallback path)."""
