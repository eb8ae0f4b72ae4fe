"""``ndtr``: the differentiable cumulative distribution function of the standard normal.

Layer 5: imports the core, ``exp``, ``square`` and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.exponential import exp

# The standard normal density at x is _DENSITY * exp(-x ** 2 / 2).
_DENSITY = 1.0 / math.sqrt(2.0 * math.pi)


class Ndtr(SpecialUnary):
    """Elementwise standard normal CDF."""

    _label = "ndtr"
    _scipy_name = "ndtr"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        # compat: x ** 2 is Chainer's node ('_ ** 2'), with square's values.
        return _DENSITY * exp(-0.5 * x ** 2) * grad_outputs[0],


def ndtr(x: Any) -> variable.Variable:
    """Elementwise cumulative distribution function of the standard normal distribution.

    Uses ``scipy.special.ndtr`` on CPU (without SciPy, a slower elementwise loop after a
    PerformanceWarning) and ``cupyx.scipy.special.ndtr`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.
    """
    y, = Ndtr().apply((x,))
    return y
