"""``n_step_gru`` and ``n_step_bigru``: stacked GRUs over time-major, variable-length batches.

Layer 5: imports functions (activation, array, connection, rnn.n_step_rnn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer_compat.functions.activation.sigmoid import sigmoid
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.connection.linear import linear
from chainer_compat.functions.rnn.n_step_rnn import CellStep, reject_removed_kwargs, run_layers
from chainer_compat.variable import Variable

__all__ = ["n_step_bigru", "n_step_gru", "n_step_gru_base"]


def _gru_cell(w: Sequence[Any], b: Sequence[Any]) -> CellStep:
    # Gate order of ws[l][0:3] (and 3:6): reset, update, candidate. The reset gate scales the
    # candidate's hidden projection including its bias b_5, as cuDNN does.
    input_w = concat(w[0:3], axis=0)
    hidden_w = concat(w[3:6], axis=0)
    input_b = concat(b[0:3], axis=0)
    hidden_b = concat(b[3:6], axis=0)

    def step(x: Any, h: Variable, c: Variable | None) -> tuple[Variable, Variable | None]:
        reset_x, update_x, candidate_x = split_axis(linear(x, input_w, input_b), 3, axis=1)
        reset_h, update_h, candidate_h = split_axis(linear(h, hidden_w, hidden_b), 3, axis=1)
        reset = sigmoid(reset_x + reset_h)
        update = sigmoid(update_x + update_h)
        candidate = tanh(candidate_x + reset * candidate_h)
        return (1 - update) * candidate + update * h, None
    return step


def n_step_gru_base(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any], use_bi_direction: bool,
                    **kwargs: Any) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked GRU, one- or two-directional; see :func:`n_step_gru` and :func:`n_step_bigru`.

    Args:
        use_bi_direction: If True, each layer runs both directions (see :func:`n_step_bigru`).

    Returns:
        ``(hy, ys)``.

    Raises:
        ValueError: For the removed ``train=`` / ``use_cudnn=`` options.
    """
    reject_removed_kwargs(kwargs)
    hy, _, ys = run_layers(_gru_cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                           use_bi_direction)
    return hy, ys


def n_step_gru(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
               bs: Sequence[Sequence[Any]], xs: Sequence[Any],
               **kwargs: Any) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked one-directional GRU over a time-major batch of sequences.

    With ``W_j`` = ``ws[l][j]`` and ``b_j`` = ``bs[l][j]``, layer ``l`` computes::

        r_t = sigmoid(W_0 x_t + b_0 + W_3 h_{t-1} + b_3)
        z_t = sigmoid(W_1 x_t + b_1 + W_4 h_{t-1} + b_4)
        n_t = tanh(W_2 x_t + b_2 + r_t * (W_5 h_{t-1} + b_5))
        h_t = (1 - z_t) * n_t + z_t * h_{t-1}

    and layer ``k > 0`` reads the hidden states of layer ``k - 1``, after dropout.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio applied to the input of every layer but the first
            (only in training mode, ``chainer.config.train``).
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``ws[l]`` holds six matrices; ``ws[0][0:3]`` are ``(N, I)``, all others
            ``(N, N)``.
        bs: ``bs[l]`` holds six vectors of shape ``(N,)``.
        xs: Time-major inputs: ``xs[t]`` has shape ``(B_t, I)`` with
            ``B_t >= B_{t+1}`` (see :func:`chainer.functions.transpose_sequence`).

    Returns:
        ``(hy, ys)``: the last hidden state of every layer and sequence (shape of ``hx``) and a
        tuple of the last layer's outputs ``ys[t]`` of shape ``(B_t, N)``.

    Raises:
        ValueError: For the removed ``train=`` / ``use_cudnn=`` options.
        chainer_compat.utils.type_check.InvalidType: If an input size does not match the
            weights (as in Chainer, which does not check it up front for GRUs).
    """
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, use_bi_direction=False,
                           **kwargs)


def n_step_bigru(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                 bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                 **kwargs: Any) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked two-directional GRU over a time-major batch of sequences.

    As :func:`n_step_gru`, but layer ``l`` runs forward in time with ``ws[2 * l]`` /
    ``bs[2 * l]`` and backward with ``ws[2 * l + 1]`` / ``bs[2 * l + 1]``; its output is the
    two hidden states concatenated ``[forward, backward]``, so ``ws[l][0:3]`` of layers above
    the first are ``(N, 2N)``.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio for the input of every layer but the first.
        hx: Initial hidden states, shape ``(2S, B, N)``, directions interleaved per layer.
        ws: ``2S`` lists of six matrices.
        bs: ``2S`` lists of six vectors.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` not increasing.

    Returns:
        ``(hy, ys)`` with ``hy`` shaped as ``hx`` and ``ys[t]`` of shape ``(B_t, 2N)``.

    Raises:
        ValueError: As for :func:`n_step_gru`.
    """
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, use_bi_direction=True,
                           **kwargs)
