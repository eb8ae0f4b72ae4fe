"""``erfc``: the differentiable complementary error function.

Layer 5: imports the core, ``exp``, ``square`` and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.exponential import exp

# d/dx erfc(x) = -2 / sqrt(pi) * exp(-x ** 2).
_SLOPE = -2.0 / math.sqrt(math.pi)


class Erfc(SpecialUnary):
    """Elementwise complementary error function."""

    _label = "erfc"
    _scipy_name = "erfc"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        # compat: x ** 2 is Chainer's node ('_ ** 2'), with square's values.
        return _SLOPE * exp(-x ** 2) * grad_outputs[0],


def erfc(x: Any) -> variable.Variable:
    """Elementwise complementary error function, ``erfc(x) = 1 - erf(x)``.

    Uses ``scipy.special.erfc`` on CPU (without SciPy, a slower elementwise loop after a
    PerformanceWarning) and ``cupyx.scipy.special.erfc`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.
    """
    y, = Erfc().apply((x,))
    return y
