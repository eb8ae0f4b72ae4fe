"""The ``Initializer`` base class and ``get_fans``, the fan count the scaled initializers share.

Layer 0: imports nothing from chainer_compat.
"""

from __future__ import annotations

import math
from typing import Any

from numpy.typing import DTypeLike


class Initializer:
    """Base of the objects that fill an existing array with initial values, in place.

    A subclass implements ``__call__(array)``; ``initializers.generate_array`` allocates the array
    (with ``dtype`` when it is set) and hands it over.

    Args:
        dtype: The dtype every array given to this initializer must have, or None to accept
            arrays of any dtype.

    Attributes:
        dtype: The dtype given at construction, unchanged (None when any dtype is accepted).
    """

    # compat: a class-level default, because subclasses written for Chainer may skip
    # super().__init__() and generate_array still reads ``dtype``.
    dtype: Any = None

    def __init__(self, dtype: DTypeLike | None = None) -> None:
        self.dtype = dtype

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Args:
            array: The NumPy or CuPy array to overwrite.

        Raises:
            NotImplementedError: Always; concrete initializers override this method.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement __call__(array) to fill the array in place, "
            "got the Initializer base method")

    def _check_shape(self, shape: tuple[int, ...]) -> None:
        """Raises what filling an array of ``shape`` would raise for its shape, without
        making one; the initializers whose spread depends on the shape override it. A load's
        check pass asks it before a lazily initialized parameter is made (NOTE
        [all-or-nothing loading])."""


def get_fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Returns ``(fan_in, fan_out)`` of a weight of the given shape.

    The shape reads as ``(out_channels, in_channels, *kernel)``: every kernel element counts
    once per channel, so a ``(64, 32, 3, 3)`` convolution weight has fan-in ``32 * 9`` and
    fan-out ``64 * 9``; a ``(out, in)`` matrix has fan-in ``in`` and fan-out ``out``.

    Args:
        shape: The weight's shape, at least two dimensions.

    Returns:
        The number of input units and the number of output units.

    Raises:
        ValueError: If ``shape`` is not a tuple or has fewer than two dimensions.
    """
    if not isinstance(shape, tuple):
        raise ValueError(
            f"shape must be a tuple, got {type(shape).__name__} (pass array.shape or tuple(shape))")
    if len(shape) < 2:
        raise ValueError(
            f"shape must have at least 2 dimensions to define fan-in and fan-out, got {shape} "
            "(fan-based initializers suit weights; initialize biases with Constant or Zero)")
    receptive_field = math.prod(shape[2:])
    return shape[1] * receptive_field, shape[0] * receptive_field
