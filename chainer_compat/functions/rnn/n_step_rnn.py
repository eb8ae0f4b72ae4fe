"""``n_step_rnn`` and ``n_step_birnn``: stacked Elman RNNs over time-major, variable-length
batches, and the layer loop that ``n_step_lstm`` and ``n_step_gru`` share.

Layer 5: imports utils.argument and functions (activation, array, connection, noise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.activation.tanh import tanh
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.separate import separate
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.connection.linear import linear
from chainer_compat.functions.noise.dropout import dropout
from chainer_compat.utils import argument
from chainer_compat.variable import Variable

__all__ = ["n_step_birnn", "n_step_rnn", "n_step_rnn_base", "n_step_rnn_impl"]

# NOTE [n-step layout]
# ``xs`` is time-major: ``xs[t]`` holds time step ``t`` of every sequence longer than ``t``,
# so batch sizes never grow with ``t`` and row ``k`` is always the same sequence. Each layer
# (and direction) ``l`` owns ``ws[l]`` / ``bs[l]``; its first half multiplies the layer input
# and its second half the previous hidden state. With two directions, index ``2 * layer``
# runs forward in time and ``2 * layer + 1`` backward, and the next layer reads their outputs
# concatenated as ``[forward, backward]`` along the feature axis.
#
# The graph is the one Chainer's CPU path builds, node for node, because that is what fixes
# the bits of every output and gradient: per time step, ``linear(x_t, W_in, b_in) +
# linear(h, W_h, b_h)`` feeds the cell, so a bias gradient is a per-step column sum added up
# over the steps (a single projection of all steps at once sums in another order and misses
# by an ulp); the state is split into the rows that run this step and the rest, and joined
# again after it, at every step; dropout runs per time step and per direction, drawing its
# masks in Chainer's order. The engine's order of work follows from node ranks, so even the
# pure copies (split, concat, separate, stack) must be there for gradient sums to come out
# in Chainer's order. One liberty: Chainer re-stacks a layer's gate weights at every step;
# a cell here stacks them once per layer and call. The stacked weight keeps the same rank and
# receives the same per-step gradients in the same order, so for one call the sums, and the
# bits, are unchanged. When one set of weights serves several calls in one graph (a shared
# encoder), each call's steps are summed before the calls are added, where Chainer adds every
# step to the weight in turn: the weights' gradients can then differ from Chainer's in the
# last bit. Stacking at every step, as Chainer does, made a 2-layer NStepLSTM's forward and
# backward 2.3 times slower (28 -> 65 ms for 16 sequences; Chainer's takes 117-150 ms).

# A cell maps one layer's weights and biases to its step function, which maps (x_t, h, c)
# to the new (h, c); c is None for cells without a cell state.
CellStep = Callable[[Any, Variable, Variable | None], tuple[Variable, Variable | None]]
Cell = Callable[[Sequence[Any], Sequence[Any]], CellStep]


def reject_removed_kwargs(kwargs: dict[str, Any]) -> None:
    """Refuses the ``train=`` and ``use_cudnn=`` options Chainer removed, and any other."""
    argument.check_unexpected_kwargs(
        kwargs,
        train="train argument is not supported anymore. Use chainer.using_config",
        use_cudnn="use_cudnn argument is not supported anymore. Use chainer.using_config")
    argument.assert_kwargs_empty(kwargs)


def check_input_size(xs: Sequence[Any], ws: Sequence[Sequence[Any]]) -> None:
    """Raises ValueError when the first input's width differs from the first weight's."""
    if not xs:
        return
    input_size = xs[0].shape[1]
    weight_input_size = ws[0][0].shape[1]
    if input_size != weight_input_size:
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            "Inconsistent input size in input values and weight parameters: "
            f"{input_size} != {weight_input_size}\n"
            "xs[t].shape[1] must equal ws[0][0].shape[1] (the input size the weights expect); "
            "build the weights for this input size")


def _run_direction(step: CellStep, inputs: Sequence[Any], h: Variable, c: Variable | None
                   ) -> tuple[Variable, Variable | None, list[Variable]]:
    """Runs ``step`` over ``inputs`` in the order given; returns the last states and outputs.

    A step narrower than the state runs on its first rows only; the other rows keep their
    state and are joined back after the step (NOTE [n-step layout]).
    """
    outputs = []
    for x in inputs:
        batch = len(x)
        partial = h.shape[0] > batch
        if partial:
            h, h_rest = split_axis(h, [batch], axis=0)
            if c is not None:
                c, c_rest = split_axis(c, [batch], axis=0)
        h, c = step(x, h, c)
        outputs.append(h)
        if partial:
            h = concat([h, h_rest], axis=0)
            if c is not None:
                c = concat([c, c_rest], axis=0)
    return h, c, outputs


def run_layers(cell: Cell, n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
               ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
               use_bi_direction: bool) -> tuple[Variable, Variable | None, tuple[Variable, ...]]:
    """The stacked (bi)directional recurrence shared by all n-step functions.

    See NOTE [n-step layout].

    Returns:
        ``(hy, cy, ys)``; ``cy`` is None when ``cx`` is None.
    """
    directions = 2 if use_bi_direction else 1
    initial_h = separate(hx, axis=0)
    initial_c = None if cx is None else separate(cx, axis=0)
    final_h: list[Variable] = []
    final_c: list[Variable | None] = []
    layer_input: list[Any] = list(xs)
    for layer in range(n_layers):
        direction_outputs = []
        for direction in range(directions):
            index = directions * layer + direction
            # Every layer but the first drops its input; each direction draws its own masks.
            inputs = layer_input if layer == 0 else [
                dropout(x, ratio=dropout_ratio) for x in layer_input]
            step = cell(ws[index], bs[index])
            c = None if initial_c is None else initial_c[index]
            if direction == 0:
                h, c, outputs = _run_direction(step, inputs, initial_h[index], c)
            else:
                h, c, outputs = _run_direction(step, inputs[::-1], initial_h[index], c)
                outputs.reverse()
            final_h.append(h)
            final_c.append(c)
            direction_outputs.append(outputs)
        if directions == 1:
            layer_input = direction_outputs[0]
        else:
            layer_input = [concat([forward, backward], axis=1)
                           for forward, backward in zip(*direction_outputs)]
    hy = stack(final_h)
    cy = None if initial_c is None else stack(final_c)
    return hy, cy, tuple(layer_input)


def n_step_rnn_impl(f: Callable[..., tuple[Variable, Variable | None]], n_layers: int,
                    dropout_ratio: float, hx: Any, cx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                    use_bi_direction: bool) -> tuple[Variable, Variable | None,
                                                     tuple[Variable, ...]]:
    """Stacked n-step recurrence with a cell of your own, as Chainer's n-step functions run.

    Args:
        f: The cell, called per time step as ``f(x, h, c, w, b)`` with the step's input, the
            state of the rows that run this step (``c`` is None without a cell state), and
            the layer's (and direction's) weights ``ws[i]`` and biases ``bs[i]``; returns
            the new ``(h, c)``.
        n_layers: Number of layers.
        dropout_ratio: Dropout ratio on the input of every layer but the first.
        hx: Initial hidden states, ``(n_layers * directions, batch, units)``.
        cx: Initial cell states of that shape, or None for a cell without one.
        ws: Weights per layer and direction (``2 * layer + 1`` runs backward in time).
        bs: Biases, indexed as ``ws``.
        xs: Time-major inputs, batch sizes not growing with time (NOTE [n-step layout]).
        use_bi_direction: Whether each layer also runs backward in time.

    Returns:
        ``(hy, cy, ys)``: the final hidden states, the final cell states (None when ``cx``
        is), and the last layer's output per time step.
    """
    def cell(w: Sequence[Any], b: Sequence[Any]) -> CellStep:
        return lambda x, h, c: f(x, h, c, w, b)

    return run_layers(cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction)


def _elman_cell(activation: Callable[[Any], Variable]) -> Cell:
    def cell(w: Sequence[Any], b: Sequence[Any]) -> CellStep:
        input_w, hidden_w = w
        input_b, hidden_b = b

        def step(x: Any, h: Variable, c: Variable | None) -> tuple[Variable, Variable | None]:
            return activation(linear(x, input_w, input_b) + linear(h, hidden_w, hidden_b)), None
        return step
    return cell


_CELLS = {"tanh": _elman_cell(tanh), "relu": _elman_cell(relu)}


def n_step_rnn_base(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str,
                    use_bi_direction: bool, **kwargs: Any) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked Elman RNN, one- or two-directional; see :func:`n_step_rnn` and
    :func:`n_step_birnn`.

    Args:
        use_bi_direction: If True, each layer runs both directions (see :func:`n_step_birnn`).

    Returns:
        ``(hy, ys)``.

    Raises:
        ValueError: For an unknown ``activation``, mismatched input size, or the removed
            ``train=`` / ``use_cudnn=`` options.
    """
    reject_removed_kwargs(kwargs)
    # Only a str is looked up: an array (an extra positional argument lands here) is
    # unhashable.
    if not isinstance(activation, str) or activation not in _CELLS:
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            f'Invalid activation: "{activation}". Please select from [tanh,relu]\n'
            'activation must be the str "tanh" or "relu"')
    check_input_size(xs, ws)
    hy, _, ys = run_layers(_CELLS[activation], n_layers, dropout_ratio,
                           hx, None, ws, bs, xs, use_bi_direction)
    return hy, ys


def n_step_rnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
               bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str = "tanh",
               **kwargs: Any) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked one-directional Elman RNN over a time-major batch of sequences.

    Each layer computes ``h_t = f(W_0 x_t + b_0 + W_1 h_{t-1} + b_1)``, with ``f`` tanh or
    ReLU; layer ``k > 0`` reads the hidden states of layer ``k - 1``, after dropout.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio applied to the input of every layer but the first
            (only in training mode, ``chainer.config.train``).
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``ws[l] = [W_0, W_1]`` for layer ``l``; ``W_0`` is ``(N, I)`` in layer 0 and
            ``(N, N)`` elsewhere, ``W_1`` is ``(N, N)``.
        bs: ``bs[l] = [b_0, b_1]``, each ``(N,)``.
        xs: Time-major inputs: ``xs[t]`` has shape ``(B_t, I)`` with
            ``B_t >= B_{t+1}`` (see :func:`chainer.functions.transpose_sequence`).
        activation: ``"tanh"`` or ``"relu"``.

    Returns:
        ``(hy, ys)``: the last hidden state of every layer and sequence (shape of ``hx``) and a
        tuple of the last layer's outputs ``ys[t]`` of shape ``(B_t, N)``.

    Raises:
        ValueError: For an unknown ``activation``, an input size that differs from
            ``ws[0][0].shape[1]``, or the removed ``train=`` / ``use_cudnn=`` options.
    """
    return n_step_rnn_base(n_layers, dropout_ratio, hx, ws, bs, xs, activation,
                           use_bi_direction=False, **kwargs)


def n_step_birnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                 bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str = "tanh",
                 **kwargs: Any) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked two-directional Elman RNN over a time-major batch of sequences.

    As :func:`n_step_rnn`, but layer ``l`` runs forward in time with ``ws[2 * l]`` /
    ``bs[2 * l]`` and backward with ``ws[2 * l + 1]`` / ``bs[2 * l + 1]``; its output is the
    two hidden states concatenated ``[forward, backward]``, so ``W_0`` of layers above the
    first is ``(N, 2N)``.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio for the input of every layer but the first.
        hx: Initial hidden states, shape ``(2S, B, N)``, directions interleaved per layer.
        ws: ``2S`` lists ``[W_0, W_1]``.
        bs: ``2S`` lists ``[b_0, b_1]``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` not increasing.
        activation: ``"tanh"`` or ``"relu"``.

    Returns:
        ``(hy, ys)`` with ``hy`` shaped as ``hx`` and ``ys[t]`` of shape ``(B_t, 2N)``.

    Raises:
        ValueError: As for :func:`n_step_rnn`.
    """
    return n_step_rnn_base(n_layers, dropout_ratio, hx, ws, bs, xs, activation,
                           use_bi_direction=True, **kwargs)
