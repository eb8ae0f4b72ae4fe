"""``connectionist_temporal_classification``: the CTC loss of unsegmented label sequences
against per-frame class scores, by the forward-backward algorithm in log space.

Layer 5: imports configuration, backend, utils, variable, function_node, type_check and the
activation, array, connection and math functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import backend, configuration, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import gradients_without_graph, records_a_graph
from chainer_compat.functions.activation.log_softmax import log_softmax
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.select_item import select_item
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.array.where import where
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.average import average
from chainer_compat.functions.math.logsumexp import logsumexp
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import AssertValueError

# NOTE [CTC in Chainer's arithmetic]
# The loss and its gradient are computed on arrays with the operations Chainer 7.8.1 applies,
# in its order and on its array layouts, so that on the same NumPy they round alike, to the
# bit: the softmax (exp of the shifted scores, divided in place by their sum), its log (with
# log_zero where that is not finite), the labels padded with blanks, one recursion run twice:
# forward over the frames and positions, and again over both reversed within each sequence's
# lengths (the frames and positions past the lengths follow, reversed). Each step takes the
# logsumexp of the three predecessors as max + log(sum(exp(x - max))) over a stacked axis,
# sets positions past the path to log_zero, adds the step to an accumulator (forward: the
# emissions, giving alpha; backward: alpha, giving alpha * beta / y) and the emissions to the
# state. The loss is -logsumexp over the positions of that product at frame 0, and the
# gradient is softmax minus the posterior of each class (summed over the path positions that
# emit it, one class at a time), times the output gradient, times the mask of valid frames.
# Frames past a sequence's input_length run through the recursion too and are masked out;
# the reversal is modulo T, so a sequence of input_length 0 is scored over all T frames
# (compat), while the mask gives it no gradient.

# NOTE [CTC labels that cannot fit]
# Each label takes a frame, and a repeated label one more for the blank between, so a sequence
# with fewer frames has no alignment: its loss is +inf and has no gradient. Like Chainer we
# return -log_zero for its loss, plus the loss of aligning its frames to a suffix of the labels
# (any start, the usual end); its gradient is that suffix loss's, a proper posterior, finite in
# every dtype: the forward recursion lets such a row start at every position (a step of log 1
# at frame 0). Nothing else changes, so every other row keeps Chainer's bits; in float32 the
# stand-in absorbs a suffix loss below 512 (half an ulp of 1e10), so that row's loss has
# Chainer's bits too, while in float16 (below 4) and float64 it may not, nor a 'mean' over it.
# Chainer's gradient there comes from rounding -1e10 + log p (in float32 every impossible state
# counts alike, and masked frames can reach inf * 0 = nan); its per-frame sum is not 0, so it
# is the gradient of no function of the softmax; we do not follow it.


def _log_zero(dtype: Any) -> float:
    """The log-probability standing for "impossible": finite, so that gradients stay finite.

    compat: Chainer's stand-ins, which are also the loss of a sequence that cannot fit its
    frames: -1e10, or -1e4 in float16, which cannot hold 1e10.
    """
    return -1e4 if dtype == numpy.float16 else -1e10


def _softmax(x: Any) -> Any:
    """Softmax over axis 2 in Chainer's order: exp of the shifted scores, divided in place."""
    xp = backend.get_array_module(x)
    probs = xp.exp(x - xp.amax(x, axis=2, keepdims=True))
    probs /= xp.sum(probs, axis=2, keepdims=True)
    return probs


def _log_or_log_zero(probs: Any, log_zero: float) -> Any:
    """``log(probs)``, with ``log_zero`` where that is not finite (a probability of 0)."""
    xp = backend.get_array_module(probs)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        log_probs = xp.log(probs)
    # compat: Chainer takes numpy.ma.log, which masks every non-finite log, not only log(0).
    log_probs[~xp.isfinite(log_probs)] = log_zero
    return log_probs


def _logsumexp(values: Any, axis: int) -> Any:
    """``log(sum(exp(values)))`` along ``axis``, rounded as Chainer's: the max plus the log of
    the summed exps of the values less the max."""
    xp = backend.get_array_module(values)
    peak = xp.amax(values, axis=axis, keepdims=True)
    peak += xp.log(xp.sum(xp.exp(values - peak), axis=axis, keepdims=True, dtype=values.dtype))
    return xp.squeeze(peak, axis=axis)


def _reverse_rows(path: Any, path_length: Any) -> Any:
    """Each row's first ``path_length`` entries reversed, followed by the rest reversed."""
    xp = backend.get_array_module(path)
    n_batch, n_position = path.shape
    positions = (xp.arange(n_position) + path_length[:, None]) % n_position
    return path[xp.arange(n_batch, dtype=numpy.int32)[:, None], positions][:, ::-1]


def _reverse_frames_and_positions(values: Any, input_length: Any, path_length: Any) -> Any:
    """``values[i, b, s]`` reversed along frames within ``input_length[b]`` and positions within
    ``path_length[b]`` (what lies past them follows, reversed); its own inverse.

    The result is a reversed view of a gather, the layout Chainer's has (NOTE [CTC in
    Chainer's arithmetic]).
    """
    xp = backend.get_array_module(values)
    n_frame, n_batch, n_position = values.shape
    frames = (xp.arange(n_frame, dtype=numpy.int32)[:, None] + input_length) % n_frame
    positions = (xp.arange(n_position, dtype=numpy.int32) + path_length[:, None]) % n_position
    gathered = values[frames[:, :, None], xp.arange(n_batch, dtype=numpy.int32)[None, :, None],
                      positions]
    return gathered[::-1, :, ::-1]


def _run_recursion(accumulator: Any, emitted: Any, path: Any, path_length: Any,
                   log_zero: float, free_start: Any = None) -> None:
    """One pass of the CTC recursion over the frames of ``emitted``; adds each frame's step to
    ``accumulator`` in place (NOTE [CTC in Chainer's arithmetic]).

    Args:
        accumulator: ``(T, B, P)`` array that receives, frame by frame, the log-probability of
            reaching each position before that frame's emission.
        emitted: ``(T, B, P)`` log-probabilities of each position's symbol at each frame.
        path: ``(B, P)`` symbols of the positions.
        path_length: Number of valid positions of each row.
        log_zero: The stand-in for log 0.
        free_start: Rows that may start at any position (NOTE [CTC labels that cannot fit]),
            or None.
    """
    xp = backend.get_array_module(emitted)
    n_batch, n_position = path.shape
    dtype = emitted.dtype
    outside = xp.arange(n_position) >= path_length[:, None]
    # A skip from two positions back is not allowed onto the same symbol (blank to blank, or
    # a repeated label).
    repeated = path[:, :-2] == path[:, 2:]
    if free_start is not None:
        free_start = free_start[:, None] & ~outside
    state = xp.full((n_batch, n_position), log_zero, dtype=dtype)
    state[:, 0] = 0
    for frame in range(len(emitted)):
        candidates = xp.full((3, n_batch, n_position), log_zero, dtype=dtype)
        candidates[0] = state
        candidates[1, :, 1:] = state[:, :-1]
        candidates[2, :, 2:] = state[:, :-2]
        candidates[2, :, 2:][repeated] = log_zero
        step = _logsumexp(candidates, axis=0)
        step[outside] = log_zero
        if frame == 0 and free_start is not None:
            step[free_start] = 0
        accumulator[frame] += step
        step += emitted[frame]
        state = step


def _loss_and_posterior(x: Any, labels: Any, input_length: Any, label_length: Any,
                        blank_symbol: int) -> tuple[Any, Any, Any, Any, Any]:
    """The per-sequence losses and what the gradient needs, in Chainer's arithmetic.

    Returns:
        ``(loss, softmax, log_posterior, path, path_length)``: ``log_posterior[i, b, s]`` is
        the log of the summed probability of the alignments through position ``s`` at frame
        ``i``; less its logsumexp over the positions, it is the log-posterior (NOTE [CTC in
        Chainer's arithmetic]).
    """
    xp = backend.get_array_module(x)
    log_zero = _log_zero(x.dtype)
    n_frame, n_batch, _ = x.shape
    path_length = 2 * label_length + 1
    path = xp.full((n_batch, 2 * labels.shape[1] + 1), blank_symbol, dtype=numpy.int32)
    path[:, 1::2] = labels
    probs = _softmax(x)
    log_probs = _log_or_log_zero(probs, log_zero)
    batch = xp.arange(n_batch, dtype=numpy.int32)
    # emitted[i, b, s]: log-probability of the symbol at position s of sequence b at frame i.
    emitted = log_probs[xp.arange(n_frame, dtype=numpy.int32)[:, None, None], batch[:, None],
                        path]
    cannot_fit = _cannot_fit(labels, input_length, label_length, n_frame)
    alpha = emitted.copy()
    _run_recursion(alpha, emitted, path, path_length, log_zero,
                   cannot_fit if cannot_fit.any() else None)
    log_posterior = _reverse_frames_and_positions(alpha, input_length, path_length)
    _run_recursion(log_posterior,
                   _reverse_frames_and_positions(emitted, input_length, path_length),
                   _reverse_rows(path, path_length), path_length, log_zero)
    log_posterior = _reverse_frames_and_positions(log_posterior, input_length, path_length)
    loss = -_logsumexp(log_posterior[0], axis=1)
    # NOTE [CTC labels that cannot fit]: the stand-in loss, plus the suffix alignments' loss.
    loss[cannot_fit] -= log_zero
    return loss, probs, log_posterior, path, path_length


def _cannot_fit(labels: Any, input_length: Any, label_length: Any, n_frame: int) -> Any:
    """Which sequences have fewer frames than their labels need (NOTE [CTC labels that cannot
    fit]). An input_length of 0 counts as all ``n_frame`` frames, as the recursion scores it
    (compat: NOTE [CTC in Chainer's arithmetic])."""
    xp = backend.get_array_module(labels)
    repeats = ((labels[:, 1:] == labels[:, :-1])
               & (xp.arange(labels.shape[1] - 1) < label_length[:, None] - 1)).sum(axis=1)
    frames = xp.where(input_length == 0, n_frame, input_length)
    return frames < label_length + repeats


def _gradient(probs: Any, log_posterior: Any, path: Any, path_length: Any, input_length: Any,
              output_grad: Any, reduce: str) -> Any:
    """The gradient of the frames, in Chainer's arithmetic (NOTE [CTC in Chainer's
    arithmetic])."""
    xp = backend.get_array_module(probs)
    log_total = _logsumexp(log_posterior[0], axis=1)
    posterior = xp.exp(log_posterior - log_total[:, None])
    gradient = probs - _class_posterior(posterior, path, path_length, probs.shape[2])
    if reduce == "mean":
        gradient *= output_grad / len(path)
    else:
        gradient *= output_grad[..., None]
    # compat: a product with the mask, not a choice, so masked frames keep Chainer's signed
    # zeros (its frames past input_length ran through the recursion as well).
    gradient *= (xp.arange(len(gradient))[:, None] < input_length)[..., None]
    return gradient


def _class_posterior(posterior: Any, path: Any, path_length: Any, n_vocabulary: int) -> Any:
    """Sums ``posterior[i, b, s]`` over the valid positions ``s`` of each symbol: ``(T, B, V)``.

    compat: one sum per sequence and symbol, over a gathered ``(T, k)`` array, as Chainer
    rounds it; a symbol at one position takes its value as it is, which is the same.
    """
    xp = backend.get_array_module(posterior)
    n_frame, n_batch, _ = posterior.shape
    result = xp.zeros((n_frame, n_batch, n_vocabulary), posterior.dtype)
    for b in range(n_batch):
        length = int(path_length[b])
        symbols = path[b, :length]
        rows = posterior[:, b, :length]
        distinct, counts = xp.unique(symbols, return_counts=True)
        single = xp.nonzero(xp.isin(symbols, distinct[counts == 1]))[0]
        result[:, b, symbols[single]] = rows[:, single]
        for symbol in distinct[counts > 1].tolist():
            result[:, b, symbol] = rows[:, symbols == symbol].sum(axis=1)
    return result


class _CTCLoss(FunctionNode):
    """The CTC loss of ``(input_length, label_length, t, x)``, differentiable in ``x``.

    compat: the inputs and label of Chainer's old-style ``ConnectionistTemporalClassification``,
    and its arithmetic (NOTE [CTC in Chainer's arithmetic]); keeps the softmax and the
    posterior for backward, as Chainer does.
    """

    def __init__(self, blank_symbol: int, reduce: str) -> None:
        self.blank_symbol = blank_symbol
        self.reduce = reduce
        self._probs: Any = None
        self._log_posterior: Any = None
        self._path: Any = None
        self._path_length: Any = None

    @property
    def label(self) -> str:
        return "ConnectionistTemporalClassification"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("input_length", "label_length", "t", "x"))
        input_length_type, label_length_type, t_type, x_type = in_types
        type_check.expect(
            input_length_type.dtype == numpy.int32,
            input_length_type.ndim == 1,
            label_length_type.dtype == numpy.int32,
            label_length_type.ndim == 1,
            t_type.ndim == 2,
            t_type.dtype == numpy.int32,
            x_type.ndim == 3,
            x_type.dtype.kind == "f",
        )
        # A second call: a light check reads the shapes at once, so the ndims must hold first.
        n_batch = x_type.shape[1]
        type_check.expect(
            t_type.shape[0] == n_batch,
            input_length_type.shape[0] == n_batch,
            label_length_type.shape[0] == n_batch,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        input_length, label_length, labels, x = inputs
        xp = backend.get_array_module(x)
        loss, self._probs, self._log_posterior, self._path, self._path_length = \
            _loss_and_posterior(x, labels, input_length, label_length, self.blank_symbol)
        if self.reduce == "mean":
            loss = utils.force_array(xp.mean(loss))
        return loss,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        input_length, label_length, labels, x = self.get_retained_inputs()
        gy, = grad_outputs
        if not records_a_graph():
            # compat: Chainer's CTC is an old-style Function, whose gradient is an array: a
            # hook sees no node applied here (NOTE [old-style gradients]).
            gx = _gradient(self._probs, self._log_posterior, self._path, self._path_length,
                           input_length.array, gy.array, self.reduce)
            return gradients_without_graph((None, None, None, gx), indexes)
        gx_variable, = _CTCLossGrad(self).apply((x, gy))
        return None, None, None, gx_variable


class _CTCLossGrad(FunctionNode):
    """The gradient of :class:`_CTCLoss`: ``(x, gy) -> gx``.

    Chainer's cannot be differentiated; this one can: its backward differentiates the loss
    composed of differentiable functions (:func:`_composed_loss`) twice.
    """

    def __init__(self, loss_node: _CTCLoss) -> None:
        self.loss_node = loss_node

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        _, gy = inputs
        node = self.loss_node
        input_length = node.get_retained_inputs()[0].array
        return _gradient(node._probs, node._log_posterior, node._path, node._path_length,
                         input_length, gy, node.reduce),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat import _engine  # layer 6: differentiates the composition below

        x, gy = self.get_retained_inputs()
        node = self.loss_node
        input_length, label_length, labels, _ = (
            retained.array for retained in node.get_retained_inputs())
        record = configuration.config.enable_backprop
        with configuration.using_config("enable_backprop", True):
            loss = _composed_loss(x, labels, input_length, label_length, node.blank_symbol,
                                  node.reduce)
            gx, = _engine.grad([loss], [x], [gy], enable_double_backprop=True)
        g_x, g_gy = _engine.grad([gx], [x, gy], [grad_outputs[0]],
                                 enable_double_backprop=record)
        return g_x, g_gy


class ConnectionistTemporalClassification:
    """The CTC loss of stacked frames. Use :func:`connectionist_temporal_classification`.

    Compat: Chainer's is an old-style ``Function``, called as
    ``ConnectionistTemporalClassification(blank_symbol, reduce)(input_length, label_length, t,
    x)`` with ``x`` the frames stacked to ``(T, B, V)``; calling an instance works the same
    here and applies a node of that label, whose gradient can also be differentiated.

    Args:
        blank_symbol: Index of the blank class.
        reduce: ``'mean'`` or ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
    """

    label = "ConnectionistTemporalClassification"

    def __init__(self, blank_symbol: int, reduce: str = "mean") -> None:
        check_reduce(reduce, ("mean", "no"), "connectionist_temporal_classification")
        self.blank_symbol = blank_symbol
        self.reduce = reduce

    def __call__(self, input_length: Any, label_length: Any, t: Any,
                 x: Any) -> variable.Variable:
        """The loss of frames ``x`` of shape ``(T, B, V)`` against labels ``t``.

        Raises:
            chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
        """
        node = _CTCLoss(self.blank_symbol, self.reduce)
        return node.apply((variable.as_array(input_length), variable.as_array(label_length),
                           variable.as_array(t), x))[0]


def connectionist_temporal_classification(
        x: Any, t: Any, blank_symbol: int, input_length: Any = None, label_length: Any = None,
        reduce: str = "mean") -> variable.Variable:
    """Connectionist Temporal Classification loss (Graves et al., 2006).

    ``x[i]`` holds unnormalized scores of the ``V`` classes at frame ``i``; softmax is applied
    inside. The loss of sequence ``b`` is ``-log`` of the total probability of all frame-level
    alignments that collapse to ``t[b, :label_length[b]]`` (repeats merged, blanks removed),
    over the first ``input_length[b]`` frames, computed with the forward-backward algorithm.
    A sequence too long for its frames has no alignment; its loss is ``1e10`` (``1e4`` in
    float16), as in Chainer.

    The loss and gradient round as Chainer's do, to the bit on the same NumPy (NOTE [CTC in
    Chainer's arithmetic] in the source); the gradient can also be differentiated, through
    the same loss composed of differentiable functions.

    Compat: Chainer's gradient for a sequence too long for its frames is a rounding artifact;
    ours is that of aligning the frames to a suffix of the labels, and in float64 its loss adds
    that suffix's loss to ``1e10`` (see NOTE [CTC labels that cannot fit] in the source).

    Args:
        x: Sequence of ``T`` frames, each of shape ``(B, V)``.
        t: ``int32`` labels of shape ``(B, L)``, without the blank symbol.
        blank_symbol: Index of the blank class, in ``[0, V)``.
        input_length: ``int32`` number of valid frames of each sequence, shape ``(B,)``;
            ``T`` for all when None.
        label_length: ``int32`` number of valid labels of each sequence, shape ``(B,)``;
            ``L`` for all when None.
        reduce: ``'mean'`` averages the losses over the batch; ``'no'`` keeps them.

    Returns:
        The loss: shape ``()``, or ``(B,)`` for ``'no'``.

    Raises:
        TypeError: If ``x`` is not a sequence or ``blank_symbol`` is not an int.
        ValueError: On an invalid ``reduce``, a ``blank_symbol`` outside ``[0, V)`` or an
            ``x[0]`` that is not 2-dimensional (these two also AssertionErrors, as Chainer
            asserts them).
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    if not isinstance(x, Sequence):
        raise TypeError(f"x must be a list of Variables, got {type(x).__name__}")
    if not isinstance(blank_symbol, int):
        # compat: Chainer's sentence first, which code may match.
        raise TypeError(
            "blank_symbol must be non-negative integer.\n"
            f"blank_symbol must be an int, got {type(blank_symbol).__name__}")
    n_vocabulary = x[0].shape[1]
    # compat: Chainer asserts these two (NOTE [bare asserts] in utils/_assertions.py).
    if not 0 <= blank_symbol < n_vocabulary:
        raise AssertValueError(
            f"blank_symbol must be in [0, {n_vocabulary}) (the number of classes), got "
            f"{blank_symbol}")
    if x[0].ndim != 2:
        raise AssertValueError(
            f"each x[t] of connectionist_temporal_classification must be 2-dimensional "
            f"(batch, classes), got x[0].shape={tuple(x[0].shape)}")
    node = ConnectionistTemporalClassification(blank_symbol, reduce)
    frames = stack(list(x))
    labels = variable.as_array(t)
    xp = backend.get_array_module(labels)
    if input_length is None:
        input_length = xp.full(frames.shape[1], frames.shape[0], dtype=numpy.int32)
    if label_length is None:
        label_length = xp.full(len(labels), labels.shape[1], dtype=numpy.int32)
    return node(input_length, label_length, labels, frames)


def _composed_loss(frames: variable.Variable, labels: Any, input_length: Any,
                   label_length: Any, blank_symbol: int, reduce: str) -> variable.Variable:
    """The CTC loss composed of differentiable functions: what second derivatives come from.

    Its gradient is the one :func:`_loss_and_posterior` computes, in other rounding.
    """
    xp = backend.get_array_module(labels)
    n_frame, n_batch, n_vocabulary = frames.shape
    # The extended path interleaves blanks: blank, t0, blank, t1, ..., blank.
    path = xp.full((n_batch, 2 * labels.shape[1] + 1), blank_symbol, dtype=numpy.int32)
    path[:, 1::2] = labels
    path_length = 2 * label_length + 1
    n_position = path.shape[1]
    dtype = frames.dtype

    # emitted[i, b, s]: log-probability of the path's symbol s of sequence b at frame i.
    log_probs = reshape(log_softmax(frames, axis=2), (-1, 1))
    offsets = (xp.arange(n_frame * n_batch, dtype=numpy.int32) * n_vocabulary).reshape(
        n_frame, n_batch, 1)
    emitted = reshape(embed_id(offsets + path[None], log_probs),
                      (n_frame, n_batch, n_position))

    log_zero = _log_zero(dtype)
    position = xp.arange(n_position)
    # A skip from s-2 is allowed only onto a label that differs from the one two back.
    can_skip = (position >= 2) & (path != xp.roll(path, 2, axis=1))
    # NOTE [CTC labels that cannot fit]: the same suffix alignments as the arrays' recursion.
    cannot_fit = _cannot_fit(labels, input_length, label_length, n_frame)
    free_start = (position < 2) | cannot_fit[:, None]
    start_penalty = xp.where(free_start, 0, log_zero).astype(dtype)
    skip_penalty = xp.where(can_skip, 0, log_zero).astype(dtype)
    pad_one = xp.full((n_batch, 1), log_zero, dtype=dtype)
    pad_two = xp.full((n_batch, min(2, n_position)), log_zero, dtype=dtype)

    alpha = emitted[0] + start_penalty
    for frame in range(1, n_frame):
        stay = alpha
        step = concat([pad_one, alpha[:, :-1]], axis=1)
        skip = concat([pad_two, alpha[:, :n_position - 2]], axis=1) + skip_penalty
        advanced = logsumexp(stack([stay, step, skip]), axis=0) + emitted[frame]
        running = xp.broadcast_to((frame < input_length)[:, None], alpha.shape)
        alpha = where(running, advanced, alpha)

    # Valid alignments end on the last label or the final blank.
    last = select_item(alpha, path_length - 1)
    before_last = select_item(alpha, xp.maximum(path_length - 2, 0))
    before_last = before_last + xp.where(path_length > 1, 0, log_zero).astype(dtype)
    loss = (-logsumexp(stack([last, before_last], axis=1), axis=1)
            + xp.where(cannot_fit, -log_zero, 0).astype(dtype))
    # A sequence without frames gets no gradient (NOTE [CTC in Chainer's arithmetic]).
    loss = where(input_length > 0, loss, xp.zeros(n_batch, dtype))
    if reduce == "mean":
        return average(loss)
    return loss
