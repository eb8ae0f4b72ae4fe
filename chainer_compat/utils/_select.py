"""``where``, ``select`` and ``bits_type``: choosing entries under a mask without branching,
for the masks an activation or a max pooling makes, true about every other entry.

Layer 1: imports backend.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend

# NOTE [branch-free selection]
# NumPy's ``where`` (and ``putmask``, ``copyto(where=)``) branches on every entry. Under a mask
# with no pattern, such as ``x > 0`` on activations, the processor mispredicts about every
# other branch: on 2M float32 entries ``where`` takes 7.2 ms against 1.1 ms for a sorted
# mask. Selecting by the values' bits instead, each ANDed with an all-ones or all-zeros word
# made from the mask, has no branch and takes 1.5 ms whatever the mask. Bits are copied, not
# computed, so the result is ``where``'s to the bit, NaN payloads and signed zeros included.
# Below about eight thousand entries the extra NumPy calls cost more than they save; on a GPU
# there is no branch to mispredict: both keep ``where``.
_MIN_SIZE = 8192


def bits_type(dtype: Any) -> numpy.dtype[Any]:
    """The unsigned integer type of ``dtype``'s size, to handle its values as bits (a float
    of up to 8 bytes: see :func:`_has_bits`)."""
    return numpy.dtype(f"u{numpy.dtype(dtype).itemsize}")


def _has_bits(dtype: numpy.dtype[Any]) -> bool:
    """Whether ``dtype`` is a float with an unsigned integer type of its size (a long double
    has none)."""
    return dtype.kind == "f" and dtype.itemsize <= 8


def _words(mask: Any, bits: numpy.dtype[Any]) -> Any:
    """All ones where the NumPy ``mask`` is set, all zeros elsewhere, a new array of ``bits``."""
    words = mask.astype(bits)
    numpy.subtract(bits.type(0), words, out=words)  # 1 -> all ones, by wraparound
    return words


def select(mask: Any, values: Any) -> Any:
    """``xp.where(mask, values, 0)`` in ``values``' dtype, the same bits and layout, without
    branching where that is faster (NOTE [branch-free selection]): a NumPy ``values`` of at
    least eight thousand floats and a C-ordered boolean ``mask`` of its shape (``where``'s
    result then is C-ordered too; for another mask it follows the operands' layouts, which
    later sums in memory order would feel).

    Unlike ``values * mask``, infinities and NaNs where the mask is clear give +0, not NaN.
    """
    if (type(values) is numpy.ndarray and values.size >= _MIN_SIZE and _has_bits(values.dtype)
            and type(mask) is numpy.ndarray and mask.dtype == numpy.bool_
            and mask.shape == values.shape and mask.flags.c_contiguous):
        bits = bits_type(values.dtype)
        words = _words(mask, bits)
        numpy.bitwise_and(words, numpy.ascontiguousarray(values).view(bits), out=words)
        return words.view(values.dtype)
    xp = backend.get_array_module(values)
    return xp.where(mask, values, values.dtype.type(0))


def where(condition: Any, chosen: Any, other: Any) -> Any:
    """``xp.where(condition, chosen, other)``, the same bits, without branching where that is
    faster (NOTE [branch-free selection]): NumPy arrays of at least eight thousand entries, all
    three of one shape and C-ordered, a boolean ``condition``, ``chosen`` and ``other`` of one
    float dtype."""
    if (type(chosen) is numpy.ndarray and type(other) is numpy.ndarray
            and type(condition) is numpy.ndarray and condition.dtype == numpy.bool_
            and chosen.dtype == other.dtype and _has_bits(chosen.dtype)
            and chosen.size >= _MIN_SIZE and chosen.shape == other.shape == condition.shape
            and chosen.flags.c_contiguous and other.flags.c_contiguous
            and condition.flags.c_contiguous):
        bits = bits_type(chosen.dtype)
        words = _words(condition, bits)
        result = numpy.bitwise_and(words, chosen.view(bits))
        numpy.invert(words, out=words)
        numpy.bitwise_and(words, other.view(bits), out=words)
        numpy.bitwise_or(result, words, out=result)
        return result.view(chosen.dtype)
    return backend.get_array_module(chosen, other, condition).where(condition, chosen, other)
