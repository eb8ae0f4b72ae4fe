"""``lgamma``: the differentiable logarithm of the absolute value of the gamma function.

Layer 5: imports the core, ``digamma`` and the shared special-function base.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.digamma import digamma


class LGamma(SpecialUnary):
    """Elementwise ``log|gamma(x)|``."""

    _label = "lgamma"
    _scipy_name = "gammaln"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return digamma(x) * grad_outputs[0],


def lgamma(x: Any) -> variable.Variable:
    """Elementwise logarithm of the absolute value of the gamma function.

    Uses ``scipy.special.gammaln`` on CPU and ``cupyx.scipy.special.gammaln`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = LGamma().apply((x,))
    return y
