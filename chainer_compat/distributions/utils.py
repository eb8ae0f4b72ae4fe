"""Helpers shared by the distributions: ``x log x`` extended to 0 and sampling primitives.

Layer 8: imports backend, functions and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat import functions as F

__all__: list[str] = []


def _modified_xlogx(x: Any) -> variable.Variable:
    """``x * log(x)`` with the limit 0 at ``x == 0``, differentiable where ``x > 0``."""
    x = variable.as_variable(x)
    xp = backend.get_array_module(x)
    positive = xp.asarray(x.array > 0)
    # log of a placeholder 1 where x == 0 keeps NaN out of both the value and the gradient.
    safe = F.where(positive, x, xp.ones_like(x.array))
    return F.where(positive, x * F.log(safe), xp.zeros_like(x.array))


def _array_module(*values: Any) -> Any:
    return backend.get_array_module(*values)


def _draw(xp: Any, name: str, dtype: Any, *args: Any, **kwargs: Any) -> Any:
    """Calls ``xp.random.<name>`` and casts the result to ``dtype``.

    NumPy's generators take no dtype; CuPy's float16 generators are missing, so both draw in
    the default precision and cast.
    """
    return getattr(xp.random, name)(*args, **kwargs).astype(dtype, copy=False)


def _fill(xp: Any, like: variable.Variable, value: float) -> Any:
    """An array of ``value`` with the shape and dtype of ``like``."""
    return xp.full(like.shape, value, dtype=like.dtype)

