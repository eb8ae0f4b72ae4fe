"""``Highway``: the highway layer ``y = h(x W_h + b_h) * t + x * (1 - t)`` with the transform
gate ``t = sigmoid(x W_t + b_t)``.

Layer 8: imports functions, link and links.connection.linear.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.links.connection.linear import Linear

__all__ = ["Highway"]


class Highway(link.Chain):
    """A highway layer: a gated mix of a transformed input and the input itself.

    Input and output have the same size. The children are two :class:`Linear` layers,
    ``plain`` (the transform ``h``) and ``transform`` (the gate).

    Args:
        in_out_size: Size of the input and the output.
        nobias: If True, neither Linear layer has a bias.
        activate: The activation ``h`` applied to the plain path.
        init_Wh: Initializer of ``plain.W``; None for ``LeCunNormal()``.
        init_Wt: Initializer of ``transform.W``; None for ``LeCunNormal()``.
        init_bh: Initializer of ``plain.b``; None for zeros.
        init_bt: Initializer of ``transform.b``; -1 by default, so the gate starts mostly
            closed and the layer starts near the identity.

    Attributes:
        plain: The Linear layer of the plain path.
        transform: The Linear layer of the gate.
        activate: The activation of the plain path.
    """

    def __init__(self, in_out_size: int, nobias: bool = False,
                 activate: Callable[[Any], Any] = relu, init_Wh: Any = None,
                 init_Wt: Any = None, init_bh: Any = None, init_bt: Any = -1) -> None:
        super().__init__()
        self.activate = activate
        with self.init_scope():
            self.plain = Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wh,
                                initial_bias=init_bh)
            self.transform = Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wt,
                                    initial_bias=init_bt)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the layer's output for ``x`` of shape ``(batch, in_out_size)``."""
        plain_out = self.activate(self.plain(x))
        gate = sigmoid(self.transform(x))
        return plain_out * gate + x * (1 - gate)
