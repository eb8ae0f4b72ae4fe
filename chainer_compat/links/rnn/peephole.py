"""``StatefulPeepholeLSTM``: an LSTM layer whose gates also see the cell state.

Layer 8: imports backend, functions, link, links.connection.linear, links.rnn._state and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, link, variable
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.rnn.lstm import split_gate_variables
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.rnn._state import CellStateMixin

__all__ = ["StatefulPeepholeLSTM"]


class StatefulPeepholeLSTM(CellStateMixin, link.Chain):
    """A fully-connected LSTM layer with peephole connections, keeping its state.

    The gate pre-activations ``upward(x) + lateral(h)`` use the layout of
    :func:`chainer_compat.functions.lstm`. The input and forget gates add ``peep_i(c_prev)``
    and ``peep_f(c_prev)``, the output gate adds ``peep_o(c)`` of the new cell state:
    ``c = tanh(a) sigmoid(i + peep_i c_prev) + sigmoid(f + peep_f c_prev) c_prev`` and
    ``h = sigmoid(o + peep_o c) tanh(c)``.

    Args:
        in_size: Input size, or None to infer it from the first input.
        out_size: Output size (the number of units).

    Attributes:
        upward: ``Linear(in_size, 4 * out_size)``.
        lateral: ``Linear(out_size, 4 * out_size, nobias=True)``.
        peep_i: ``Linear(out_size, out_size, nobias=True)``, and ``peep_f``, ``peep_o`` alike.
        c: The cell state Variable, or None before the first call.
        h: The output Variable, or None before the first call.
        state_size: ``out_size``.
    """

    upward: Linear
    lateral: Linear
    peep_i: Linear
    peep_f: Linear
    peep_o: Linear
    c: variable.Variable | None
    h: variable.Variable | None

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        self.state_size = out_size
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = Linear(out_size, out_size, nobias=True)
            self.peep_f = Linear(out_size, out_size, nobias=True)
            self.peep_o = Linear(out_size, out_size, nobias=True)

    def forward(self, x: Any) -> variable.Variable:
        """Runs one step and updates the state.

        Args:
            x: The input, of the state's batch size.

        Returns:
            The new output, also kept as ``h``.
        """
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in += self.lateral(self.h)
        if self.c is None:
            with backend.using_device(self.device):
                self.c = variable.Variable(
                    self.xp.zeros((x.shape[0], self.state_size), dtype=x.dtype))
        a, i, f, o = split_gate_variables(lstm_in)
        c_prev = self.c
        c = tanh(a) * sigmoid(i + self.peep_i(c_prev)) + sigmoid(f + self.peep_f(c_prev)) * c_prev
        self.c = c
        self.h = sigmoid(o + self.peep_o(c)) * tanh(c)
        return self.h
