"""``selu``: the scaled exponential linear unit, ``scale * elu(x, alpha)``.

Layer 5: imports the ELU function.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.activation.elu import elu


def selu(x: Any, alpha: float = 1.6732632423543772848170429916717,
         scale: float = 1.0507009873554804934193349852946) -> variable.Variable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)``.

    The defaults are the self-normalizing constants of Klambauer et al. (2017).

    Args:
        x: Input Variable or array of floats.
        alpha: The ELU parameter ``alpha``.
        scale: The factor ``lambda`` applied to the ELU output.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    return elu(x, alpha=alpha) * scale
