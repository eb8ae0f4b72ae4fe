"""Argument checks shared by the normalization functions (private).

Layer 5: imports only numpy.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy


def check_eps(eps: Any, function: str) -> None:
    """Raises TypeError unless ``eps`` is a real number (a NumPy scalar or 0-d array counts).

    Chainer adds ``eps`` to the variance and fails there with a TypeError; casting None to a
    float dtype instead would silently give NaN everywhere.
    """
    if isinstance(eps, numbers.Real) and not isinstance(eps, bool):
        return
    if isinstance(eps, (numpy.generic, numpy.ndarray)) and numpy.ndim(eps) == 0 and (
            numpy.asarray(eps).dtype.kind in "iuf"):
        return
    raise TypeError(
        f"eps of {function} must be a real number, got {type(eps).__name__} {eps!r}; pass a "
        "small positive float such as 2e-5")
