"""``save_and_load`` and ``save_and_load_npz``: round-trip an object through a serializer, for
tests of ``serialize`` methods.

Layer 8: imports ``serializers``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

from chainer_compat import serializers

__all__ = ["save_and_load", "save_and_load_npz"]


def save_and_load(src: Any, dst: Any, filename: str, saver: Callable[[str, Any], None],
                  loader: Callable[[str, Any], None]) -> None:
    """Saves ``src`` to ``filename`` with ``saver``, then loads it into ``dst`` with ``loader``.

    Args:
        src: The object to save.
        dst: The object to load into (same structure as ``src``).
        filename: The file to write and read.
        saver: Called as ``saver(filename, src)``, e.g. ``serializers.save_npz``.
        loader: Called as ``loader(filename, dst)``, e.g. ``serializers.load_npz``.
    """
    saver(filename, src)
    loader(filename, dst)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """Copies the serialized state of ``src`` into ``dst`` through a temporary NPZ file.

    Args:
        src: The object to save (e.g. a Link).
        dst: The object to load into.
    """
    with tempfile.TemporaryDirectory() as directory:
        save_and_load(src, dst, os.path.join(directory, "tmp.npz"), serializers.save_npz,
                      serializers.load_npz)
