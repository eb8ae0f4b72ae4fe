"""Gated recurrent unit layers: ``StatelessGRU``, ``StatefulGRU`` and its strict alias ``GRU``.

Layer 8: imports backend, functions, link, links.connection.linear, links.rnn._state and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.math.linear_interpolate import linear_interpolate
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.rnn._state import HiddenStateMixin

__all__ = ["GRU", "GRUBase", "StatefulGRU", "StatelessGRU"]


class GRUBase(link.Chain):
    """The six layers of a GRU, shared by the stateless and stateful links.

    ``W_r``, ``W_z`` and ``W`` (``Linear(in_size, out_size)``) act on the input; ``U_r``,
    ``U_z`` and ``U`` (``Linear(out_size, out_size)``) on the previous state. The step is
    ``r = sigmoid(W_r x + U_r h)``, ``z = sigmoid(W_z x + U_z h)``,
    ``h_bar = tanh(W x + U (r * h))`` and ``h_new = z * h_bar + (1 - z) * h``.

    Args:
        in_size: Input size, or None to infer it from the first input.
        out_size: Output size (the state size).
        init: Initializer of the input weights ``W_r.W``, ``W_z.W`` and ``W.W``; None means
            ``LeCunNormal()``.
        inner_init: Initializer of the state weights ``U_r.W``, ``U_z.W`` and ``U.W``.
        bias_init: Initializer of all six biases; None means zero.
    """

    W_r: Linear
    U_r: Linear
    W_z: Linear
    U_z: Linear
    W: Linear
    U: Linear

    def __init__(self, in_size: int | None, out_size: int, init: Any = None,
                 inner_init: Any = None, bias_init: Any = None) -> None:
        super().__init__()
        with self.init_scope():
            self.W_r = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_r = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W_z = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_z = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)


class StatelessGRU(GRUBase):
    """A GRU layer that takes its previous state as an argument; see :class:`GRUBase`."""

    def forward(self, h: Any, x: Any) -> variable.Variable:
        """Runs one step.

        Args:
            h: The previous state, of shape ``(B, out_size)``.
            x: The input, of batch size ``B``.

        Returns:
            The new state.
        """
        r = sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh(self.W(x) + self.U(r * h))
        return linear_interpolate(z, h_bar, h)


class StatefulGRU(HiddenStateMixin, GRUBase):
    """A GRU layer that keeps its state ``h``; see :class:`GRUBase`.

    The first call after :meth:`reset_state` has no previous state: it returns
    ``sigmoid(W_z x) * tanh(W x)``.

    Args:
        in_size: Input size, or None to infer it from the first input.
        out_size: Output size (the state size).
        init: Initializer of the input weights.
        inner_init: Initializer of the state weights.
        bias_init: Initializer of the biases (default zero).

    Attributes:
        h: The state Variable, or None before the first call.
        state_size: ``out_size``.
    """

    h: variable.Variable | None

    def __init__(self, in_size: int | None, out_size: int, init: Any = None,
                 inner_init: Any = None, bias_init: Any = 0) -> None:
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.state_size = out_size
        self.reset_state()

    def forward(self, x: Any) -> variable.Variable:
        """Runs one step and updates the state.

        Args:
            x: The input, of the state's batch size.

        Returns:
            The new state, also kept as ``h``.
        """
        z = self.W_z(x)
        h_bar = self.W(x)
        if self.h is not None:
            r = sigmoid(self.W_r(x) + self.U_r(self.h))
            z += self.U_z(self.h)
            h_bar += self.U(r * self.h)
        z = sigmoid(z)
        h_bar = tanh(h_bar)
        if self.h is None:
            h_new = z * h_bar
        else:
            h_new = linear_interpolate(z, h_bar, self.h)
        self.h = h_new
        return h_new


class GRU(StatefulGRU):
    """:class:`StatefulGRU` that refuses the two-argument call of the old stateless GRU."""

    def forward(self, *args: Any) -> variable.Variable:
        """Runs one step of :class:`StatefulGRU` on ``args[0]``.

        Raises:
            ValueError: Unless exactly one argument is given.
        """
        count = len(args)
        # compat: Chainer's wording, which names the v2 change from stateless to stateful.
        message = ("Invalid argument. The length of GRU.forward must be 1. "
                   f"But {count} is given. ")
        if count == 2:
            message += ("In Chainer v2, chainer.links.GRU is changed from stateless to "
                        "stateful. One possibility is you assume GRU to be stateless. "
                        "Use chainer.links.StatelessGRU instead.")
        if count != 1:
            raise ValueError(message)
        return super().forward(args[0])
