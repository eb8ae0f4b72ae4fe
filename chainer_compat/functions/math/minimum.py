"""``minimum``: the differentiable elementwise minimum of two inputs, with broadcasting.

Layer 5: imports the core and maximum's shared two-input base.
"""

from __future__ import annotations

import operator
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math.maximum import _ElementwisePick


class Minimum(_ElementwisePick):
    """Elementwise minimum; on ties the gradient goes to ``x1``."""

    _pick = "minimum"
    _first_wins = staticmethod(operator.le)


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
