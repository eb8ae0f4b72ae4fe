"""``erfcx``: the differentiable scaled complementary error function.

Layer 5: imports the core and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary

_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)


class Erfcx(SpecialUnary):
    """Elementwise ``exp(x ** 2) * erfc(x)``; backward reads both ``x`` and the output."""

    _label = "erfcx"
    _scipy_name = "erfcx"
    _retain = "xy"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        # d/dx erfcx(x) = 2 * x * erfcx(x) - 2 / sqrt(pi).
        return 2 * (x * y - _INV_SQRT_PI) * grad_outputs[0],  # compat: labelled "_ * 2"


def erfcx(x: Any) -> variable.Variable:
    """Elementwise scaled complementary error function, ``exp(x ** 2) * erfc(x)``.

    It stays finite where ``erfc`` underflows (large ``x``). Uses ``scipy.special.erfcx`` on
    CPU and ``cupyx.scipy.special.erfcx`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = Erfcx().apply((x,))
    return y
