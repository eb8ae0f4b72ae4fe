"""``n_step_lstm`` and ``n_step_bilstm``: stacked LSTMs over time-major, variable-length batches.

Layer 5: imports functions (array, connection, rnn.lstm, rnn.n_step_rnn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.connection.linear import linear
from chainer_compat.functions.rnn.lstm import lstm
from chainer_compat.functions.rnn.n_step_rnn import (
    CellStep,
    check_input_size,
    reject_removed_kwargs,
    run_layers,
)
from chainer_compat.variable import Variable

__all__ = ["n_step_bilstm", "n_step_lstm", "n_step_lstm_base"]


def _interleave_gates(arrays: Sequence[Any]) -> Variable:
    """Stacks four per-gate arrays so that row ``4k + g`` is row ``k`` of gate ``g``.

    That is the channel layout :func:`~chainer_compat.functions.lstm` reads its gates from.
    """
    stacked = stack(list(arrays), axis=1)
    return reshape(stacked, (stacked.shape[0] * stacked.shape[1],) + stacked.shape[2:])


def _lstm_cell(w: Sequence[Any], b: Sequence[Any]) -> CellStep:
    # ws[l][0:4] (and 4:8) are the input, forget, candidate and output gates, as cuDNN lays
    # them out; F.lstm wants candidate, input, forget, output.
    input_w = _interleave_gates([w[2], w[0], w[1], w[3]])
    hidden_w = _interleave_gates([w[6], w[4], w[5], w[7]])
    input_b = _interleave_gates([b[2], b[0], b[1], b[3]])
    hidden_b = _interleave_gates([b[6], b[4], b[5], b[7]])

    def step(x: Any, h: Variable, c: Variable | None) -> tuple[Variable, Variable | None]:
        c, h = lstm(c, linear(x, input_w, input_b) + linear(h, hidden_w, hidden_b))
        return h, c
    return step


def _lstm(x: Any, h: Any, c: Any, w: Sequence[Any], b: Sequence[Any]) -> tuple[Variable, Variable]:
    """One step of one n-step LSTM layer from its eight weights and biases.

    Chainer keeps this private helper here, and libraries' tests import it (chainerrl's, as a
    reference for a stateless recurrent link). It computes a step exactly as
    :func:`n_step_lstm` does.

    Args:
        x: Inputs of the step, ``(batch, in_size)``.
        h, c: Hidden and cell states, ``(batch, out_size)``.
        w, b: A layer's eight weights and biases, in NStepLSTM's order (input, forget, cell
            candidate and output gate, for the input and then for the hidden state).

    Returns:
        The new hidden and cell states ``(h, c)``.
    """
    h, c = _lstm_cell(w, b)(x, h, c)
    return h, c  # type: ignore[return-value]


def n_step_lstm_base(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                     ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                     xs: Sequence[Any], use_bi_direction: bool,
                     **kwargs: Any) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked LSTM, one- or two-directional; see :func:`n_step_lstm` and
    :func:`n_step_bilstm`.

    Args:
        use_bi_direction: If True, each layer runs both directions (see :func:`n_step_bilstm`).

    Returns:
        ``(hy, cy, ys)``.

    Raises:
        ValueError: For a mismatched input size or the removed ``train=`` / ``use_cudnn=``
            options.
    """
    reject_removed_kwargs(kwargs)
    check_input_size(xs, ws)
    hy, cy, ys = run_layers(_lstm_cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                            use_bi_direction)
    return hy, cy, ys  # type: ignore[return-value]


def n_step_lstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                **kwargs: Any) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked one-directional LSTM over a time-major batch of sequences.

    With ``W_j`` = ``ws[l][j]`` and ``b_j`` = ``bs[l][j]``, layer ``l`` computes::

        i_t = sigmoid(W_0 x_t + b_0 + W_4 h_{t-1} + b_4)
        f_t = sigmoid(W_1 x_t + b_1 + W_5 h_{t-1} + b_5)
        a_t = tanh(W_2 x_t + b_2 + W_6 h_{t-1} + b_6)
        o_t = sigmoid(W_3 x_t + b_3 + W_7 h_{t-1} + b_7)
        c_t = f_t * c_{t-1} + i_t * a_t
        h_t = o_t * tanh(c_t)

    and layer ``k > 0`` reads the hidden states of layer ``k - 1``, after dropout.

    Compat:
        Chainer's docstring names ``W_2`` the output gate and ``W_3`` the cell input, but its
        computation (CPU and cuDNN alike) uses them as written above; so does this function.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio applied to the input of every layer but the first
            (only in training mode, ``chainer.config.train``).
        hx: Initial hidden states, shape ``(S, B, N)``.
        cx: Initial cell states, shape ``(S, B, N)``.
        ws: ``ws[l]`` holds eight matrices; ``ws[0][0:4]`` are ``(N, I)``, all others
            ``(N, N)``.
        bs: ``bs[l]`` holds eight vectors of shape ``(N,)``.
        xs: Time-major inputs: ``xs[t]`` has shape ``(B_t, I)`` with
            ``B_t >= B_{t+1}`` (see :func:`chainer.functions.transpose_sequence`).

    Returns:
        ``(hy, cy, ys)``: the last hidden and cell states of every layer and sequence (shapes
        of ``hx`` and ``cx``) and a tuple of the last layer's outputs ``ys[t]`` of shape
        ``(B_t, N)``.

    Raises:
        ValueError: For an input size that differs from ``ws[0][0].shape[1]`` or the removed
            ``train=`` / ``use_cudnn=`` options.
    """
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                            use_bi_direction=False, **kwargs)


def n_step_bilstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                  ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                  **kwargs: Any) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked two-directional LSTM over a time-major batch of sequences.

    As :func:`n_step_lstm`, but layer ``l`` runs forward in time with ``ws[2 * l]`` /
    ``bs[2 * l]`` and backward with ``ws[2 * l + 1]`` / ``bs[2 * l + 1]``; its output is the
    two hidden states concatenated ``[forward, backward]``, so ``ws[l][0:4]`` of layers above
    the first are ``(N, 2N)``.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio for the input of every layer but the first.
        hx: Initial hidden states, shape ``(2S, B, N)``, directions interleaved per layer.
        cx: Initial cell states, shaped as ``hx``.
        ws: ``2S`` lists of eight matrices.
        bs: ``2S`` lists of eight vectors.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` not increasing.

    Returns:
        ``(hy, cy, ys)`` with ``hy`` and ``cy`` shaped as ``hx`` and ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Raises:
        ValueError: As for :func:`n_step_lstm`.
    """
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                            use_bi_direction=True, **kwargs)
