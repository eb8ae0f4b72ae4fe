"""``chainer.utils.array``: small array helpers; ``as_vec``, ``as_mat`` and ``empty_like`` are
deprecated in Chainer and warn, ``size_of_shape`` and ``sum_to`` are ``chainer.utils``'s own.

Layer 1: imports ``backend`` and ``utils``; ``variable`` only inside ``sum_to``.
"""

from __future__ import annotations

import warnings
from typing import Any

from chainer_compat import backend
from chainer_compat import utils as _utils

__all__ = ["as_mat", "as_vec", "empty_like", "size_of_shape", "sum_to"]

# The helpers of ``chainer_compat.utils`` are looked up when called, not at import, so this
# module imports cleanly even while ``chainer_compat.utils`` itself is still being imported.


def as_vec(x: Any) -> Any:
    """Returns ``x`` flattened to one dimension (``x`` itself when it already is).

    Deprecated: use ``x.ravel()``. Issues a DeprecationWarning.
    """
    warnings.warn(
        "chainer.utils.array.as_vec is deprecated. Please refer to numpy.ravel or other array "
        "backend functions to flatten ndarrays.", DeprecationWarning, stacklevel=1)
    if x.ndim == 1:
        return x
    return x.ravel()


def as_mat(x: Any) -> Any:
    """Returns ``x`` reshaped to ``(len(x), -1)`` (``x`` itself when it is already 2-d).

    Deprecated: use ``x.reshape(len(x), -1)``. Issues a DeprecationWarning.
    """
    warnings.warn(
        "chainer.utils.array.as_mat is deprecated. Please refer to numpy.reshape or other "
        "array backend functions to reshape ndarrays.", DeprecationWarning, stacklevel=1)
    if x.ndim == 2:
        return x
    return x.reshape(len(x), -1)


def empty_like(x: Any) -> Any:
    """Returns an uninitialized array like ``x`` from x's array module (NumPy or CuPy).

    Deprecated: use ``xp.empty_like(x)``. Issues a DeprecationWarning.
    """
    warnings.warn(
        "chainer.utils.array.empty_like is deprecated. Please refer to numpy.empty_like or "
        "other array backend functions to initialize empty arrays.",
        DeprecationWarning, stacklevel=1)
    return backend.get_array_module(x).empty_like(x)


def size_of_shape(shape: Any) -> int:
    """Returns the number of elements of an array of ``shape`` (1 for ``()``)."""
    return _utils.size_of_shape(shape)


def sum_to(x: Any, shape: Any) -> Any:
    """Sums the array ``x`` down to ``shape``, the reverse of broadcasting ``shape`` to x's.

    Args:
        x: A NumPy or CuPy array.
        shape: The shape to sum to; ``x.shape`` must be a broadcast of it.

    Returns:
        ``x`` itself when its shape is already ``shape``, else a new array.

    Raises:
        TypeError: If ``x`` is a Variable; use ``chainer.functions.sum_to`` for Variables.
    """
    if x.shape == shape:
        return x
    # Layer 3, above utils; a Variable can only exist once chainer_compat.variable is loaded.
    from chainer_compat.variable import Variable

    if isinstance(x, Variable):
        # compat: Chainer's wording.
        raise TypeError("chainer.utils.sum_to does not support Variable input. "
                        "Use chainer.functions.sum_to instead.")
    return _utils.sum_to(x, tuple(shape))
