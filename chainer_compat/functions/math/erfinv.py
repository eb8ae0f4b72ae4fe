"""``erfinv``: the differentiable inverse of the error function.

Layer 5: imports the core, ``exp``, ``square`` and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.exponential import exp

# d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x) ** 2).
_SLOPE = math.sqrt(math.pi) / 2.0


class ErfInv(SpecialUnary):
    """Elementwise inverse error function; backward reuses the output."""

    _label = "erfinv"
    _scipy_name = "erfinv"
    _retain = "y"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        # compat: y ** 2 is Chainer's node ('_ ** 2'), with square's values.
        return _SLOPE * exp(y ** 2) * grad_outputs[0],


def erfinv(x: Any) -> variable.Variable:
    """Elementwise inverse error function: ``y`` with ``erf(y) = x``, for ``x`` in [-1, 1].

    Uses ``scipy.special.erfinv`` on CPU and ``cupyx.scipy.special.erfinv`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = ErfInv().apply((x,))
    return y
