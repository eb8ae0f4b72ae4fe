"""``ndtri``: the differentiable inverse of the standard normal CDF.

Layer 5: imports the core, ``exp``, ``square`` and the shared special-function base.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.exponential import exp

_SQRT_2PI = math.sqrt(2.0 * math.pi)


class Ndtri(SpecialUnary):
    """Elementwise inverse of ``ndtr``; backward reuses the output."""

    _label = "ndtri"
    _scipy_name = "ndtri"
    _retain = "y"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        # The reciprocal of the normal density at y.
        # compat: y ** 2 is Chainer's node ('_ ** 2'), with square's values.
        return _SQRT_2PI * exp(0.5 * y ** 2) * grad_outputs[0],


def ndtri(x: Any) -> variable.Variable:
    """Elementwise inverse of :func:`ndtr`: ``y`` with ``ndtr(y) = x``, for ``x`` in [0, 1].

    Uses ``scipy.special.ndtri`` on CPU and ``cupyx.scipy.special.ndtri`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = Ndtri().apply((x,))
    return y
