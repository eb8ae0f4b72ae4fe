"""``maxout``: the maximum over groups of ``pool_size`` consecutive entries along an axis.

Layer 5: imports the ``reshape`` and ``max`` functions and the array axis message.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array._common import axis_range_message
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math.minmax import max as _max
from chainer_compat.utils import type_check


def maxout(x: Any, pool_size: int, axis: int = 1) -> variable.Variable:
    """Maxout: splits ``axis`` (of size ``M * pool_size``) into ``(M, pool_size)`` and takes
    the maximum over the second part.

    Args:
        x: Input Variable or array of floats, usually the output of a linear layer.
        pool_size: How many entries each output is the maximum of.
        axis: The axis to pool along.

    Returns:
        A Variable like ``x`` whose ``axis`` is ``pool_size`` times shorter.

    Raises:
        ValueError: If ``pool_size`` is not positive.
        IndexError: If ``axis`` names no axis of ``x``.
        chainer_compat.utils.type_check.InvalidType: If ``x.shape[axis]`` is not a multiple
            of ``pool_size``.
    """
    if pool_size <= 0:
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(f"pool_size must be a positive integer.\nGot {pool_size!r}")
    shape = tuple(x.shape)
    if not -len(shape) <= axis < len(shape):
        # compat: Chainer reads x.shape[axis] before any check, so its users get IndexError.
        raise IndexError(axis_range_message(axis, len(shape))
                         + f" for x.shape={shape}; pass the axis of x to pool along")
    axis %= len(shape)
    if shape[axis] % pool_size != 0:
        # compat: Chainer raises InvalidType with this first line.
        raise type_check.InvalidType(
            "x.shape[axis] % pool_size == 0",
            f"x.shape[axis]={shape[axis]}, pool_size={pool_size}",
            f"axis dimension must be divided by pool_size\n"
            f"Expect: x.shape[axis] % pool_size == 0\n"
            f"Actual: x.shape[axis]={shape[axis]}, pool_size={pool_size}")
    grouped = shape[:axis] + (shape[axis] // pool_size, pool_size) + shape[axis + 1:]
    return _max(reshape(x, grouped), axis=axis + 1)
