"""``save_and_load``, ``save_and_load_npz`` and ``save_and_load_hdf5``: round-trip an object
through a serializer, for tests of ``serialize`` methods.

Layer 8: imports ``serializers``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

from chainer_compat import serializers
from chainer_compat.serializers import hdf5

__all__ = ["save_and_load", "save_and_load_hdf5", "save_and_load_npz"]


def save_and_load(src: Any, dst: Any, filename: str, saver: Callable[[str, Any], None],
                  loader: Callable[[str, Any], None]) -> None:
    """Saves ``src`` with ``saver``, then loads it into ``dst`` with ``loader``.

    The file is named ``filename`` inside a temporary directory removed afterwards.

    Args:
        src: The object to save.
        dst: The object to load into (same structure as ``src``).
        filename: The file name to write and read.
        saver: Called as ``saver(path, src)``, e.g. ``serializers.save_npz``.
        loader: Called as ``loader(path, dst)``, e.g. ``serializers.load_npz``.
    """
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, filename)
        saver(path, src)
        loader(path, dst)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """Copies the serialized state of ``src`` into ``dst`` through a temporary NPZ file.

    Args:
        src: The object to save (e.g. a Link).
        dst: The object to load into.
    """
    save_and_load(src, dst, "tmp.npz", serializers.save_npz, serializers.load_npz)


def save_and_load_hdf5(src: Any, dst: Any) -> None:
    """Copies the serialized state of ``src`` into ``dst`` through a temporary HDF5 file.

    Args:
        src: The object to save (e.g. a Link).
        dst: The object to load into.

    Raises:
        RuntimeError: If h5py is not installed (also an ImportError).
    """
    save_and_load(src, dst, "tmp.h5", hdf5.save_hdf5, hdf5.load_hdf5)
