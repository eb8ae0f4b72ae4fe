"""``digamma``: the differentiable logarithmic derivative of the gamma function.

Layer 5: imports the core, ``polygamma`` and the shared special-function base.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.math._special import SpecialUnary
from chainer_compat.functions.math.polygamma import polygamma


class DiGamma(SpecialUnary):
    """Elementwise digamma function."""

    _label = "digamma"
    _scipy_name = "digamma"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        # The derivative of digamma is the first polygamma function (trigamma).
        order = xp.asarray(1, dtype=numpy.int64)
        return polygamma(order, x) * grad_outputs[0],


def digamma(x: Any) -> variable.Variable:
    """Elementwise digamma function, the derivative of :func:`lgamma`.

    Uses ``scipy.special.digamma`` on CPU and ``cupyx.scipy.special.digamma`` on GPU.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable, of ``x``'s shape and dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = DiGamma().apply((x,))
    return y
