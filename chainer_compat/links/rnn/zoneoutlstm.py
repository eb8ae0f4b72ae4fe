"""``StatefulZoneoutLSTM``: a fully-connected LSTM whose cell state and output are regularized
with zoneout in training.

Layer 8: imports backend, functions, link, links.connection.linear, links.rnn._state, utils and
variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, link, variable
from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.noise.zoneout import zoneout
from chainer_compat.functions.rnn.lstm import split_gate_variables
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.rnn._state import SettableCellStateMixin
from chainer_compat.utils import argument

__all__ = ["StatefulZoneoutLSTM"]


class StatefulZoneoutLSTM(SettableCellStateMixin, link.Chain):
    """An LSTM layer that keeps its state and applies zoneout to ``c`` and ``h``.

    ``upward`` (``Linear(in_size, 4 * out_size)``) acts on the input and ``lateral``
    (``Linear(out_size, 4 * out_size, nobias=True)``) on the previous output; their output
    channels follow the interleaved gate layout of :func:`chainer_compat.functions.lstm`. One
    step computes ``c_new = tanh(a) sigmoid(i) + sigmoid(f) c`` and
    ``h_new = sigmoid(o) tanh(c_new)``, then keeps each element of the old ``c`` (``h``) with
    probability ``c_ratio`` (``h_ratio``) in training; outside training it is a plain LSTM step.
    Unlike :class:`~chainer_compat.links.LSTM`, all parameters use the default initializers
    (zero biases, forget gate included).

    Args:
        in_size: Input size.
        out_size: Output size (the number of units).
        c_ratio: Zoneout ratio of the cell state.
        h_ratio: Zoneout ratio of the output.

    Attributes:
        c: The cell state Variable, or None before the first call.
        h: The output Variable, or None before the first call.
        state_size: ``out_size``.

    Raises:
        ValueError: On the ``train`` argument (use ``chainer.using_config('train', ...)``).
        TypeError: On another unknown keyword.
    """

    upward: Linear
    lateral: Linear
    c: variable.Variable | None
    h: variable.Variable | None

    def __init__(self, in_size: int | None, out_size: int, c_ratio: float = 0.5,
                 h_ratio: float = 0.5, **kwargs: Any) -> None:
        argument.parse_kwargs(
            kwargs, train="train argument is not supported anymore. Use chainer.using_config")
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)

    def _zeros(self, x: Any) -> variable.Variable:
        with backend.using_device(self.device):
            return variable.Variable(
                self.xp.zeros((len(x), self.state_size), dtype=x.dtype))

    def forward(self, x: Any) -> variable.Variable:
        """Runs one step and updates the state.

        Args:
            x: The input, of shape ``(B, in_size)``; ``B`` must match the state's batch size.

        Returns:
            The new output, also kept as ``h``.
        """
        lstm_in = self.upward(x)
        if self.h is None:
            self.h = self._zeros(x)
        else:
            lstm_in += self.lateral(self.h)
        if self.c is None:
            self.c = self._zeros(x)
        a, i, f, o = split_gate_variables(lstm_in)
        c_new = tanh(a) * sigmoid(i) + sigmoid(f) * self.c
        h_new = sigmoid(o) * tanh(c_new)
        self.c = zoneout(self.c, c_new, self.c_ratio)
        self.h = zoneout(self.h, h_new, self.h_ratio)
        return self.h
