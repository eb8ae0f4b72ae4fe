"""``chainer.utils.error``: formatting of array properties for error messages.

Layer 1: imports nothing from the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _format_array_props(arrays: Sequence[Any]) -> str:
    """Returns ``'shape:dtype'`` of each array, comma-separated, e.g. ``'(2, 3):float32'``.

    Args:
        arrays: A list or tuple of arrays; a None entry is written ``None``.

    Raises:
        TypeError: If ``arrays`` is not a list or tuple.

    Compat: Chainer asserts on a non-sequence and fails on a None entry.
    """
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(f"arrays must be a list or tuple, got {type(arrays).__name__}")
    return ", ".join("None" if array is None else f"{array.shape}:{array.dtype.name}"
                     for array in arrays)
