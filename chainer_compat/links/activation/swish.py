"""``Swish``: the activation ``x * sigmoid(beta * x)`` with a learned ``beta``, whose shape may
be taken from the first input.

Layer 8: imports functions, initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import initializers, link, variable
from chainer_compat.functions.activation.swish import swish

__all__ = ["Swish"]


class Swish(link.Link):
    """The Swish activation with a learned ``beta``.

    Args:
        beta_shape: Shape of ``beta``, matched to the input's axes from axis 1 on; None makes
            it ``x.shape[1:]`` of the first input.
        beta_init: Initial value of ``beta``: a scalar, an array or an initializer.

    Attributes:
        beta: The parameter.
    """

    beta: variable.Parameter

    def __init__(self, beta_shape: Any, beta_init: Any = 1.0) -> None:
        super().__init__()
        with self.init_scope():
            if beta_shape is not None:
                self.beta = variable.Parameter(beta_init, beta_shape)
            else:
                # A Constant, not the bare value: an array value would otherwise make beta at
                # once with the array's shape instead of waiting for the input.
                self.beta = variable.Parameter(initializers.Constant(beta_init))

    def forward(self, x: Any) -> variable.Variable:
        """Returns the activation of ``x``, of the same shape."""
        if self.beta.array is None:
            self.beta.initialize(x.shape[1:])
        return swish(x, self.beta)
