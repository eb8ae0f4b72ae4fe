"""``connectionist_temporal_classification``: the CTC loss of unsegmented label sequences
against per-frame class scores, by the forward algorithm in log space.

Layer 5: imports backend, variable, type_check and the activation, array and math functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat import backend, variable
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


def _log_zero(dtype: Any) -> float:
    """The log-probability standing for "impossible": finite, so that gradients stay finite.

    compat: Chainer's stand-ins, which are also the loss of a sequence that cannot fit its
    frames: -1e10, or -1e4 in float16, which cannot hold 1e10.
    """
    return -1e4 if dtype == numpy.float16 else -1e10


class ConnectionistTemporalClassification:
    """The CTC loss of stacked frames. Use :func:`connectionist_temporal_classification`.

    Compat: Chainer's is an old-style ``Function``, called as
    ``ConnectionistTemporalClassification(blank_symbol, reduce)(input_length, label_length, t,
    x)`` with ``x`` the frames stacked to ``(T, B, V)``; calling an instance works the same
    here. The loss is built from differentiable functions (see
    :func:`connectionist_temporal_classification`), so its creator is one of those, not this
    object, and it can be differentiated twice.

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

    def check_type_forward(self, in_types: Any) -> None:
        """Type-checks ``(input_length, label_length, t, x)``."""
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

    def __call__(self, input_length: Any, label_length: Any, t: Any,
                 x: Any) -> variable.Variable:
        """The loss of frames ``x`` of shape ``(T, B, V)`` against labels ``t``.

        Raises:
            chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
        """
        frames = variable.as_variable(x)
        labels = variable.as_array(t)
        input_length = variable.as_array(input_length)
        label_length = variable.as_array(label_length)
        type_check._check_types_forward(
            self, (input_length, label_length, labels, frames.array))
        return _loss(frames, labels, input_length, label_length, self.blank_symbol,
                     self.reduce)


def connectionist_temporal_classification(
        x: Any, t: Any, blank_symbol: int, input_length: Any = None, label_length: Any = None,
        reduce: str = "mean") -> variable.Variable:
    """Connectionist Temporal Classification loss (Graves et al., 2006).

    ``x[i]`` holds unnormalized scores of the ``V`` classes at frame ``i``; softmax is applied
    inside. The loss of sequence ``b`` is ``-log`` of the total probability of all frame-level
    alignments that collapse to ``t[b, :label_length[b]]`` (repeats merged, blanks removed),
    over the first ``input_length[b]`` frames. It is computed with the forward algorithm from
    differentiable functions, so it can be differentiated twice. A sequence too long for its
    frames has no alignment; its loss is ``1e10`` (``1e4`` in float16), as in Chainer.

    Compat: Chainer's gradient for a sequence too long for its frames is a rounding artifact;
    ours is that of aligning the frames to a suffix of the labels (see NOTE [CTC labels that
    cannot fit] in the source).

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
        ValueError: On an invalid ``reduce`` or a ``blank_symbol`` outside ``[0, V)``.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    if not isinstance(x, Sequence):
        raise TypeError(f"x must be a list of Variables, got {type(x).__name__}")
    if not isinstance(blank_symbol, int):
        raise TypeError(
            f"blank_symbol must be non-negative integer, got {type(blank_symbol).__name__}")
    n_vocabulary = x[0].shape[1]
    if not 0 <= blank_symbol < n_vocabulary:
        raise ValueError(
            f"blank_symbol must be in [0, {n_vocabulary}) (the number of classes), got "
            f"{blank_symbol}")
    node = ConnectionistTemporalClassification(blank_symbol, reduce)
    frames = stack(list(x))
    labels = variable.as_array(t)
    xp = backend.get_array_module(labels)
    if input_length is None:
        input_length = xp.full(frames.shape[1], frames.shape[0], dtype=numpy.int32)
    if label_length is None:
        label_length = xp.full(len(labels), labels.shape[1], dtype=numpy.int32)
    return node(input_length, label_length, labels, frames)


def _loss(frames: variable.Variable, labels: Any, input_length: Any, label_length: Any,
          blank_symbol: int, reduce: str) -> variable.Variable:
    """The CTC loss of type-checked inputs, by the forward algorithm in log space."""
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
    # NOTE [CTC labels that cannot fit]: each label takes a frame, and a repeated label one
    # more for the blank between, so a sequence with fewer frames has no alignment: its loss
    # is +inf and has no gradient. Like Chainer we return -log_zero for it; as its gradient we
    # take that of -log_zero plus the loss of aligning the frames to a suffix of the labels
    # (any start, the usual end): a proper posterior, finite in every dtype. Chainer's
    # gradient there comes from rounding -1e10 + log p (in float32, every impossible state
    # counts alike) and its per-frame sum is not 0, so it is the gradient of no function of
    # the softmax; we do not follow it.
    repeats = ((labels[:, 1:] == labels[:, :-1])
               & (xp.arange(labels.shape[1] - 1) < label_length[:, None] - 1)).sum(axis=1)
    cannot_fit = input_length < label_length + repeats
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
    if reduce == "mean":
        return average(loss)
    return loss
