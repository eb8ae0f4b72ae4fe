"""``minimum``: the differentiable elementwise minimum of two inputs, with broadcasting.

Layer 5: imports the core and maximum's shared two-input base.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math.maximum import _ElementwisePick, _ElementwisePickGrad


class MinimumGrad(_ElementwisePickGrad):
    """The gradients of :class:`Minimum`: ``gy`` to ``x1`` where ``x1 <= x2`` and to ``x2``
    where ``x1 > x2`` (to neither where either is NaN, as in Chainer)."""

    def _masks(self, x1: Any, x2: Any) -> tuple[Any, Any]:
        return x1 <= x2, x1 > x2

    def _split(self, gy: Any) -> tuple[Any, Any]:
        # compat: products, as Chainer computes them (maximum's gradient selects instead).
        return gy * self.to_first, gy * self.to_second


class Minimum(_ElementwisePick):
    """Elementwise minimum; on ties the gradient goes to ``x1``."""

    _pick = "minimum"
    _grad = MinimumGrad


def minimum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise minimum of two inputs.

    Args:
        x1: First input (float Variable or array).
        x2: Second input, of the same dtype and broadcastable with ``x1``.

    Returns:
        The output Variable.
    """
    y, = Minimum().apply((x1, x2))
    return y
