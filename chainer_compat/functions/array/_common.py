"""Small checks shared by the array functions: integer tests, axis type checks and the
message for an axis out of range.

Layer 5: imports only numpy and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat.utils import type_check


def is_int(value: Any) -> bool:
    """Whether ``value`` is a Python or NumPy integer (and not a bool)."""
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


def require_int(value: Any, name: str) -> int:
    """Returns ``value`` as an int.

    Raises:
        TypeError: If ``value`` is not an integer.
    """
    if not is_int(value):
        raise TypeError(f"{name} must be int, got {type(value).__name__} {value!r}")
    return int(value)


def check_axis(in_type: Any, axis: int) -> None:
    """Type-checks that ``axis`` (negative ones too) names an axis of ``in_type``."""
    if axis >= 0:
        type_check.expect(in_type.ndim > axis)
    else:
        type_check.expect(in_type.ndim >= -axis)


def check_insert_axis(in_type: Any, axis: int) -> None:
    """Type-checks that ``axis`` is a valid position for a new axis of an ``in_type`` array."""
    if axis >= 0:
        type_check.expect(in_type.ndim >= axis)
    else:
        type_check.expect(in_type.ndim >= -axis - 1)



def axis_range_message(axis: int, ndim: int, name: str = "axis") -> str:
    """Says that ``axis`` names no axis of an ``ndim``-d ``x``, in our error style.

    For the functions where Chainer leaves the axis to NumPy or to Python, which raise their
    own types (AxisError, IndexError) instead of InvalidType.
    """
    return (f"{name} must be in [-{ndim}, {ndim}) to name an axis of the {ndim}-d x "
            f"(-1 names its last), got {axis}")
