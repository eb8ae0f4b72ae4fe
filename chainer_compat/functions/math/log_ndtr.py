"""``log_ndtr``: the differentiable logarithm of the standard normal CDF.

Layer 5: imports the core, ``erfcx`` and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.erfcx import erfcx

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_2 = math.sqrt(2.0)


class LogNdtr(SpecialUnary):
    """Elementwise ``log(ndtr(x))``, accurate far into the lower tail."""

    _label = "log_ndtr"
    _scipy_name = "log_ndtr"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        # density / ndtr written with erfcx, so it stays finite where ndtr underflows.
        # compat: -x / sqrt(2) as Chainer's two nodes (negation, then the scale).
        return _SQRT_2_OVER_PI / erfcx(-x / _SQRT_2) * grad_outputs[0],


def log_ndtr(x: Any) -> variable.Variable:
    """Elementwise logarithm of the standard normal CDF, ``log(ndtr(x))``.

    Uses ``scipy.special.log_ndtr`` on CPU and ``cupyx.scipy.special.log_ndtr`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = LogNdtr().apply((x,))
    return y
