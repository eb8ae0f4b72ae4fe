"""Stacked LSTM links over lists of variable-length sequences: ``NStepLSTM``, ``NStepBiLSTM``.

Layer 8: imports functions.rnn.n_step_lstm, links.rnn.n_step_rnn and variable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.rnn import n_step_lstm as lstm_functions
from chainer_compat.links.rnn.n_step_rnn import NStepRNNBase

__all__ = ["NStepBiLSTM", "NStepLSTM", "NStepLSTMBase"]


class NStepLSTMBase(NStepRNNBase):
    """Stacked LSTM layers: :class:`NStepRNNBase` with eight weights per layer and a cell state.

    See :func:`chainer.functions.n_step_lstm` for the role of ``w0`` ... ``w7``.
    """

    n_weights = 8

    @property
    def n_cells(self) -> int:
        return 2

    def forward(self, hx: Any, cx: Any, xs: Sequence[Any],  # type: ignore[override]
                **kwargs: Any) -> tuple[variable.Variable, variable.Variable,
                                        list[variable.Variable]]:
        """Runs the layers over a batch of sequences.

        Args:
            hx: Initial hidden states, shape ``(n_layers * direction, B, out_size)``, or None
                for zeros.
            cx: Initial cell states, shaped as ``hx``, or None for zeros.
            xs: ``B`` sequences (Variables or arrays of shape ``(L_b, in_size)``), in any
                order of length.

        Returns:
            ``(hy, cy, ys)``: the last hidden and cell states and the outputs of the last
            layer, ``ys[b]`` of shape ``(L_b, direction * out_size)``, in the order of ``xs``.
        """
        (hy, cy), ys = self._call([hx, cx], xs, **kwargs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked one-directional LSTM over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_lstm` for
    the computation.
    """

    use_bi_direction = False

    def rnn(self, *args: Any) -> Any:
        return lstm_functions.n_step_lstm(*args)


class NStepBiLSTM(NStepLSTMBase):
    """Stacked two-directional LSTM over variable-length sequences.

    See :class:`NStepRNNBase` for the arguments and :func:`chainer.functions.n_step_bilstm`
    for the computation.
    """

    use_bi_direction = True

    def rnn(self, *args: Any) -> Any:
        return lstm_functions.n_step_bilstm(*args)
