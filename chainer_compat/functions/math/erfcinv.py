"""``erfcinv``: the differentiable inverse of the complementary error function.

Layer 5: imports the core, ``exp``, ``square`` and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.exponential import exp
from chainer_compat.functions.math.square import square

# d/dx erfcinv(x) = -sqrt(pi) / 2 * exp(erfcinv(x) ** 2).
_SLOPE = -math.sqrt(math.pi) / 2.0


class ErfcInv(SpecialUnary):
    """Elementwise inverse complementary error function; backward reuses the output."""

    _label = "erfcinv"
    _scipy_name = "erfcinv"
    _retain = "y"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return _SLOPE * exp(square(y)) * grad_outputs[0],


def erfcinv(x: Any) -> variable.Variable:
    """Elementwise inverse complementary error function: ``y`` with ``erfc(y) = x``, for
    ``x`` in [0, 2].

    Uses ``scipy.special.erfcinv`` on CPU and ``cupyx.scipy.special.erfcinv`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = ErfcInv().apply((x,))
    return y
