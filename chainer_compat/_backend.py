"""``chainer._backend``: where Chainer defines ``Device``; some libraries built on Chainer
(chainer-chemistry) import it from here rather than from ``chainer.backend``.

Layer 1: imports backend.
"""

from __future__ import annotations

from chainer_compat.backend import Device

__all__ = ["Device"]
