"""``PReLU``: the parametric ReLU ``max(x, 0) + W * min(x, 0)`` with a learned slope ``W``.

Layer 8: imports functions, link and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.activation.prelu import prelu

__all__ = ["PReLU"]


class PReLU(link.Link):
    """A parametric ReLU whose negative-side slope ``W`` is learned.

    Args:
        shape: Shape of ``W``; it is matched to the input's axes from axis 1 on, so ``()``
            gives one slope for everything and ``(channels,)`` one per channel.
        init: Initial value of ``W``: a scalar, an array or an initializer.

    Attributes:
        W: The slope parameter.
    """

    W: variable.Parameter

    def __init__(self, shape: Any = (), init: Any = 0.25) -> None:
        super().__init__()
        with self.init_scope():
            self.W = variable.Parameter(init, shape)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the activation of ``x``, of the same shape."""
        return prelu(x, self.W)
