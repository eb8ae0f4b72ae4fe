"""``LSTM`` and ``StatelessLSTM``: fully-connected LSTM layers built on ``functions.rnn.lstm``.

Layer 8: imports backend, functions, initializers, link, links.connection.linear,
links.rnn._state, utils and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, initializers, link, utils, variable
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.rnn.lstm import lstm, split_gates
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.rnn._state import SettableCellStateMixin

__all__ = ["LSTM", "LSTMBase", "StatelessLSTM"]


class LSTMBase(link.Chain):
    """The parameters shared by :class:`LSTM` and :class:`StatelessLSTM`.

    Two children make the gate pre-activations: ``upward`` (``Linear(in_size, 4 * out_size)``,
    applied to the input) and ``lateral`` (``Linear(out_size, 4 * out_size, nobias=True)``,
    applied to the previous output). Their rows follow the gate layout of
    :func:`chainer_compat.functions.lstm`: output channel ``4k + g`` is gate ``g`` of unit ``k``.

    Args:
        in_size: Input size, or None to infer it from the first input. When it is the only
            size given, it is the output size.
        out_size: Output size (the number of units).
        lateral_init: Initializer of ``lateral.W``; None means ``LeCunNormal()``.
        upward_init: Initializer of ``upward.W``; None means ``LeCunNormal()``.
        bias_init: Initializer of the cell-input, input-gate and output-gate biases; None
            means zero.
        forget_bias_init: Initializer of the forget-gate bias; None means one.

    Attributes:
        state_size: The number of units, ``out_size``.
        upward: The input-to-gates layer.
        lateral: The output-to-gates layer.
    """

    upward: Linear
    lateral: Linear

    def __init__(self, in_size: int | None, out_size: int | None = None,
                 lateral_init: Any = None, upward_init: Any = None, bias_init: Any = None,
                 forget_bias_init: Any = None) -> None:
        if out_size is None:
            # compat: a lone size is the output size, as in Chainer.
            in_size, out_size = None, in_size
        if out_size is None:
            raise TypeError(
                "out_size must be an int, got None; pass LSTM(out_size) or "
                "LSTM(in_size, out_size)")
        super().__init__()
        self.state_size = out_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else forget_bias_init
        with self.init_scope():
            # Zeros until _initialize_params fills them gate block by gate block.
            self.upward = Linear(in_size, 4 * out_size, initialW=0)
            self.lateral = Linear(out_size, 4 * out_size, initialW=0, nobias=True)
            if in_size is not None:
                self._initialize_params()

    def _initialize_params(self) -> None:
        """Fills the weights block by block and the biases gate by gate.

        ``lateral`` is filled here too, so with a lazy input size it stays zero until the
        first input arrives (as in Chainer).
        """
        lateral_init = initializers._get_initializer(self.lateral_init)
        upward_init = initializers._get_initializer(self.upward_init)
        bias_init = initializers._get_initializer(self.bias_init)
        forget_bias_init = initializers._get_initializer(self.forget_bias_init)
        size = self.state_size
        # compat: each initializer call sees a block of ``state_size`` rows, as in Chainer,
        # which sets the fan-in and shape an initializer is given.
        for start in range(0, 4 * size, size):
            lateral_init(self.lateral.W.array[start:start + size, :])
            upward_init(self.upward.W.array[start:start + size, :])
        bias = self.upward.b
        assert bias is not None  # upward is built with a bias
        a, i, f, o = split_gates(bias.array.reshape(1, 4 * size, 1))
        bias_init(a)
        bias_init(i)
        forget_bias_init(f)
        bias_init(o)

    def _initialize_lazily(self, in_size: int) -> None:
        """Creates ``upward.W`` for ``in_size`` inputs, then fills all parameters."""
        with backend.using_device(self.device):
            self.upward._initialize_params(in_size)
            self._initialize_params()


class StatelessLSTM(LSTMBase):
    """A fully-connected LSTM layer that takes its state as arguments.

    See :class:`LSTMBase` for the arguments and parameters.
    """

    def forward(self, c: Any, h: Any, x: Any) -> tuple[variable.Variable, variable.Variable]:
        """Runs one step.

        Args:
            c: The previous cell state, or None for zeros.
            h: The previous output, or None for none (no lateral term).
            x: The input, whose non-batch axes are flattened.

        Returns:
            ``(c, h)``: the new cell state and the new output.
        """
        if self.upward.W.array is None:
            self._initialize_lazily(x.size // x.shape[0])
        lstm_in = self.upward(x)
        if h is not None:
            lstm_in += self.lateral(h)
        if c is None:
            with backend.using_device(self.device):
                c = variable.Variable(
                    self.xp.zeros((x.shape[0], self.state_size), dtype=x.dtype))
        return lstm(c, lstm_in)


class LSTM(SettableCellStateMixin, LSTMBase):
    """A fully-connected LSTM layer that keeps its cell state ``c`` and output ``h``.

    Each call takes ``x`` of batch size ``B`` no larger than the previous one: the first ``B``
    rows of the state advance and the rest are kept (feed sequences sorted by decreasing length).
    See :class:`LSTMBase` for the arguments and parameters.

    Attributes:
        c: The cell state Variable, or None before the first call.
        h: The output Variable, or None before the first call.
    """

    c: variable.Variable | None
    h: variable.Variable | None

    def __init__(self, in_size: int | None, out_size: int | None = None,
                 lateral_init: Any = None, upward_init: Any = None, bias_init: Any = None,
                 forget_bias_init: Any = None) -> None:
        super().__init__(in_size, out_size, lateral_init, upward_init, bias_init,
                         forget_bias_init)
        self.reset_state()

    def forward(self, x: Any) -> variable.Variable:
        """Runs one step and updates the state.

        Args:
            x: The input, whose non-batch axes are flattened; its batch size must not exceed
                the state's.

        Returns:
            The new output, of shape ``(len(x), out_size)``.

        Raises:
            TypeError: If ``x`` has more rows than the state.
        """
        if self.upward.W.array is None:
            self._initialize_lazily(utils.size_of_shape(x.shape[1:]))
        batch = x.shape[0]
        lstm_in = self.upward(x)
        h_rest = None
        if self.h is not None:
            h_size = self.h.shape[0]
            if batch == 0:
                h_rest = self.h
            elif h_size < batch:
                raise TypeError(
                    "The batch size of x must be equal to or less than the size of the "
                    f"previous state h, got {batch} rows for a state of {h_size}; call "
                    "reset_state() before a larger batch")
            elif h_size > batch:
                h_update, h_rest = split_axis(self.h, [batch], axis=0)
                lstm_in += self.lateral(h_update)
            else:
                lstm_in += self.lateral(self.h)
        if self.c is None:
            with backend.using_device(self.device):
                self.c = variable.Variable(
                    self.xp.zeros((batch, self.state_size), dtype=x.dtype))
        self.c, y = lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif y.shape[0] == 0:
            self.h = h_rest
        else:
            self.h = concat((y, h_rest), axis=0)
        return y
