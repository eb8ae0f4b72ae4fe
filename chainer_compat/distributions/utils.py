"""Helpers shared by the distributions: ``x log x`` extended to 0 and sampling primitives.

Layer 8: imports backend, function_node, functions, utils and variable.
"""

from __future__ import annotations

import warnings
from typing import Any

from chainer_compat import backend, function_node, utils, variable
from chainer_compat import functions as F

__all__: list[str] = []


class ModifiedXLogX(function_node.FunctionNode):
    """``x * log(x)``, extended by its limit 0 at ``x == 0`` (Chainer's node for entropies).

    Args:
        logx: The Variable ``log(x)`` where ``x > 0`` (any finite value elsewhere: 0 at
            ``x == 0`` is what :func:`_modified_xlogx` passes). The gradient, ``1 + log(x)``,
            is built from it, so it can be differentiated again.

    The gradient at ``x == 0``, where ``x log x`` has none, is 0, with a ``RuntimeWarning``
    saying so, as in Chainer.
    """

    def __init__(self, logx: variable.Variable) -> None:
        self._logx = logx

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._at_zero = utils.force_array(x == 0)
        y = utils.force_array(x * self._logx.array)
        y[self._at_zero] = 0
        return y,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        if self._at_zero.any():
            warnings.warn("cannot calculate gradient for zero input.", RuntimeWarning,
                          stacklevel=2)
        gy, = grad_outputs
        away_from_zero = 1 - self._at_zero.astype(gy.dtype)
        return gy * ((1 + self._logx) * away_from_zero),


def _modified_xlogx(x: Any) -> variable.Variable:
    """``x * log(x)`` with the limit 0 at ``x == 0``, differentiable where ``x > 0``."""
    x = variable.as_variable(x)
    xp = backend.get_array_module(x)
    # log of a placeholder 1 where x <= 0 keeps NaN out of both the value and the gradient.
    logx = F.log(F.where(xp.asarray(x.array > 0), x, xp.ones_like(x.array)))
    return ModifiedXLogX(logx).apply((x,))[0]


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

