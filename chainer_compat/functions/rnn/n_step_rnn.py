"""``n_step_rnn`` and ``n_step_birnn``: stacked Elman RNNs over time-major, variable-length
batches, and the layer loop that ``n_step_lstm`` and ``n_step_gru`` share.

Layer 5: imports utils.argument and functions (activation, array, connection, noise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

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

__all__ = ["n_step_birnn", "n_step_rnn", "n_step_rnn_base"]

# NOTE [n-step layout]
# ``xs`` is time-major: ``xs[t]`` holds time step ``t`` of every sequence longer than ``t``,
# so batch sizes never grow with ``t`` and row ``k`` is always the same sequence. Each layer
# (and direction) ``l`` owns ``ws[l]`` / ``bs[l]``; its first half multiplies the layer input
# and its second half the previous hidden state. With two directions, index ``2 * layer``
# runs forward in time and ``2 * layer + 1`` backward, and the next layer reads their outputs
# concatenated as ``[forward, backward]`` along the feature axis.

# A cell step maps (input projection for this step, states, hidden weight, hidden bias) to
# the new states; states[0] is the hidden state, which is also the step's output.
CellStep = Callable[[Variable, list[Variable], Variable, Variable], list[Variable]]


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
        raise ValueError(
            f"xs[t].shape[1] must equal ws[0][0].shape[1] (the input size the weights expect), "
            f"got {input_size} != {weight_input_size}; build the weights for this input size")


def _split_rows(x: Variable, count: int) -> tuple[Variable, Variable | None]:
    """Splits ``x`` into its first ``count`` rows and the rest (None when nothing is left)."""
    if count >= x.shape[0]:
        return x, None
    head, tail = split_axis(x, [count], axis=0)
    return head, tail


def _scan_forward(step: CellStep, projections: Sequence[Variable], states: list[Variable],
                  hidden_w: Variable, hidden_b: Variable) -> tuple[list[Variable], list[Variable]]:
    """Runs ``step`` from the first time step to the last.

    Batch sizes shrink with time, so rows that drop out are final: they are set aside and
    joined back once at the end, instead of at every step.
    """
    finished: list[list[Variable]] = []
    outputs = []
    for projection in projections:
        batch = projection.shape[0]
        if batch < states[0].shape[0]:
            pieces = [_split_rows(state, batch) for state in states]
            states = [head for head, _ in pieces]
            finished.append([tail for _, tail in pieces])  # type: ignore[misc]
        states = step(projection, states, hidden_w, hidden_b)
        outputs.append(states[0])
    if finished:
        states = [concat([state] + [rows[index] for rows in reversed(finished)], axis=0)
                  for index, state in enumerate(states)]
    return states, outputs


def _scan_backward(step: CellStep, projections: Sequence[Variable],
                   states: list[Variable], hidden_w: Variable,
                   hidden_b: Variable) -> tuple[list[Variable], list[Variable]]:
    """Runs ``step`` from the last time step to the first.

    Batch sizes grow, so each sequence joins with its initial state when its last step comes.
    ``projections`` must not be empty.
    """
    pending: list[Variable] | None = states
    active: list[Variable] = []
    outputs: list[Variable] = list(projections)
    for time in reversed(range(len(projections))):
        projection = projections[time]
        current = active[0].shape[0] if active else 0
        if projection.shape[0] > current and pending is not None:
            pieces = [_split_rows(state, projection.shape[0] - current) for state in pending]
            joining = [head for head, _ in pieces]
            pending = None if pieces[0][1] is None else [tail for _, tail in pieces]  # type: ignore[misc]
            if active:
                joining = [concat([old, new], axis=0) for old, new in zip(active, joining)]
            active = joining
        active = step(projection, active, hidden_w, hidden_b)
        outputs[time] = active[0]
    if pending is not None:
        # Rows of ``hx`` beyond the widest time step keep their initial state.
        active = [concat([old, rest], axis=0) for old, rest in zip(active, pending)]
    return active, outputs


def _join(pieces: Sequence[Any], axis: int) -> Any:
    return pieces[0] if len(pieces) == 1 else concat(list(pieces), axis=axis)


def run_layers(step: CellStep, n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
               ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
               use_bi_direction: bool) -> tuple[Variable, Variable | None, tuple[Variable, ...]]:
    """The stacked (bi)directional recurrence shared by all n-step functions.

    See NOTE [n-step layout]. The input projection of a whole layer is one ``linear`` over all
    time steps; only the hidden projection runs step by step.

    Returns:
        ``(hy, cy, ys)``; ``cy`` is None when ``cx`` is None.
    """
    directions = 2 if use_bi_direction else 1
    initial_h = separate(hx, axis=0)
    initial_c = None if cx is None else separate(cx, axis=0)
    if not xs:
        return stack(initial_h), None if initial_c is None else stack(initial_c), ()
    sections = numpy.cumsum([len(x) for x in xs])[:-1].tolist()
    layer_input = _join(xs, axis=0)
    final_h: list[Variable] = []
    final_c: list[Variable] = []
    step_outputs: list[Variable] = list(xs)
    for layer in range(n_layers):
        direction_outputs = []
        for direction in range(directions):
            index = directions * layer + direction
            weights, biases = ws[index], bs[index]
            half = len(weights) // 2
            # Every layer but the first drops its input; each direction draws its own mask.
            source = layer_input if layer == 0 else dropout(layer_input, ratio=dropout_ratio)
            projected = linear(source, concat(weights[:half], axis=0),
                               concat(biases[:half], axis=0))
            projections = split_axis(projected, sections, axis=0) if sections else (projected,)
            states = [initial_h[index]]
            if initial_c is not None:
                states.append(initial_c[index])
            scan = _scan_backward if direction == 1 else _scan_forward
            states, outputs = scan(step, projections, states, concat(weights[half:], axis=0),
                                   concat(biases[half:], axis=0))
            final_h.append(states[0])
            if initial_c is not None:
                final_c.append(states[1])
            direction_outputs.append(outputs)
        if directions == 1:
            step_outputs = direction_outputs[0]
            if layer + 1 < n_layers:
                layer_input = _join(step_outputs, axis=0)
            continue
        layer_input = concat([_join(outputs, axis=0) for outputs in direction_outputs], axis=1)
        step_outputs = list(split_axis(layer_input, sections, axis=0)) if sections else [
            layer_input]
    hy = stack(final_h)
    cy = stack(final_c) if initial_c is not None else None
    return hy, cy, tuple(step_outputs)


def _elman_step(activation: Callable[[Any], Variable]) -> CellStep:
    def step(projection: Variable, states: list[Variable], hidden_w: Variable,
             hidden_b: Variable) -> list[Variable]:
        return [activation(projection + linear(states[0], hidden_w, hidden_b))]
    return step


_ACTIVATIONS = {"tanh": tanh, "relu": relu}


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
    if activation not in _ACTIVATIONS:
        raise ValueError(f'activation must be "tanh" or "relu", got "{activation}"')
    check_input_size(xs, ws)
    hy, _, ys = run_layers(_elman_step(_ACTIVATIONS[activation]), n_layers, dropout_ratio,
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
