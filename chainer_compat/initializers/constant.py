"""Deterministic initializers: ``Constant``, its ``Zero``/``One``/``NaN`` shorthands, ``Identity``.

Imports ``backend``, ``initializer`` and the shared helpers in ``initializers._base``.
"""

from __future__ import annotations

from typing import Any

import numpy
from numpy.typing import DTypeLike

from chainer_compat import backend
from chainer_compat.initializer import Initializer
from chainer_compat.initializers import _base


class Identity(Initializer):
    """Fills a square matrix with ``scale`` times the identity matrix.

    Args:
        scale: The value put on the diagonal.
        dtype: The dtype arrays must have, or None to accept any.

    Attributes:
        scale: The value put on the diagonal.
    """

    def __init__(self, scale: Any = 1.0, dtype: DTypeLike | None = None) -> None:
        self.scale = scale
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place.

        Raises:
            ValueError: If ``array`` is not a square 2-D matrix, or its dtype differs from a set
                ``dtype``.
        """
        _base.check_dtype(self, array)
        shape = array.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(
                f"Identity array shape must be a square matrix (n, n), got {tuple(shape)} "
                "(use Orthogonal or a Constant for other shapes)")
        xp = backend.get_array_module(array)
        # compat: Chainer's arithmetic: a negative scale gives -0.0 off the diagonal, NaN
        # gives NaN everywhere. Computed whole before the write, so a bad scale writes nothing.
        array[...] = xp.identity(shape[0]) * self.scale


class _Constant(Initializer):
    """Fills an array with the class's or instance's ``fill_value``, broadcast to its shape."""

    # compat: Zero, One and NaN set their value at class level, Constant per instance.
    fill_value: Any = None

    def __init__(self, dtype: DTypeLike | None = None) -> None:
        fill_value = self.fill_value
        if not (numpy.isscalar(fill_value) or _base.is_ndarray(fill_value)):
            raise ValueError(
                "fill_value must be a scalar, a numpy.ndarray or a cupy.ndarray, "
                f"got {type(fill_value).__name__} (wrap sequences with numpy.asarray)")
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        """Fills ``array`` in place with ``fill_value``, broadcast to its shape.

        Raises:
            ValueError: If the dtype differs from a set ``dtype``, or ``fill_value`` does not
                broadcast to the array's shape.
        """
        _base.check_dtype(self, array)
        _base.assign(array, self.fill_value)


class Constant(_Constant):
    """Fills an array with a constant: a scalar or an array broadcast to the array's shape.

    Args:
        fill_value: A scalar, or a NumPy or CuPy array that broadcasts to the filled arrays'
            shape; it is copied across devices when needed.
        dtype: The dtype arrays must have, or None to accept any.

    Raises:
        ValueError: If ``fill_value`` is neither a scalar nor an array.
    """

    def __init__(self, fill_value: Any, dtype: DTypeLike | None = None) -> None:
        self.fill_value = fill_value
        super().__init__(dtype)


class Zero(_Constant):
    """Fills an array with zeros.

    Args:
        dtype: The dtype arrays must have, or None to accept any.
    """

    fill_value = 0.0


class One(_Constant):
    """Fills an array with ones.

    Args:
        dtype: The dtype arrays must have, or None to accept any.
    """

    fill_value = 1.0


class NaN(_Constant):
    """Fills an array with NaN (useful to catch parameters that are read before being set).

    Args:
        dtype: The dtype arrays must have, or None to accept any.
    """

    fill_value = numpy.nan
