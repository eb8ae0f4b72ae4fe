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

# Log-probability standing for "impossible": finite, so that gradients stay finite.
_LOG_ZERO = -1e10


def _check_inputs(frames: variable.Variable, t: Any, input_length: Any,
                  label_length: Any) -> None:
    n_batch = frames.shape[1]
    checks = [
        ("input_length.dtype == int32", input_length.dtype == numpy.int32,
         f"{input_length.dtype} != int32"),
        ("input_length.ndim == 1", input_length.ndim == 1, f"{input_length.ndim} != 1"),
        ("label_length.dtype == int32", label_length.dtype == numpy.int32,
         f"{label_length.dtype} != int32"),
        ("label_length.ndim == 1", label_length.ndim == 1, f"{label_length.ndim} != 1"),
        ("t.ndim == 2", t.ndim == 2, f"{t.ndim} != 2"),
        ("t.dtype == int32", t.dtype == numpy.int32, f"{t.dtype} != int32"),
        ("x.dtype.kind == f", frames.dtype.kind == "f", f"{frames.dtype.kind} != f"),
        ("t.shape[0] == n_batch", t.shape[0] == n_batch, f"{t.shape[0]} != {n_batch}"),
        ("input_length.shape[0] == n_batch", len(input_length) == n_batch,
         f"{len(input_length)} != {n_batch}"),
        ("label_length.shape[0] == n_batch", len(label_length) == n_batch,
         f"{len(label_length)} != {n_batch}"),
    ]
    for expect, holds, actual in checks:
        if not holds:
            raise type_check.InvalidType(expect, actual)


def connectionist_temporal_classification(
        x: Any, t: Any, blank_symbol: int, input_length: Any = None, label_length: Any = None,
        reduce: str = "mean") -> variable.Variable:
    """Connectionist Temporal Classification loss (Graves et al., 2006).

    ``x[i]`` holds unnormalized scores of the ``V`` classes at frame ``i``; softmax is applied
    inside. The loss of sequence ``b`` is ``-log`` of the total probability of all frame-level
    alignments that collapse to ``t[b, :label_length[b]]`` (repeats merged, blanks removed),
    over the first ``input_length[b]`` frames. It is computed with the forward algorithm from
    differentiable functions, so it can be differentiated twice.

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
    check_reduce(reduce, ("mean", "no"), "connectionist_temporal_classification")
    if x[0].ndim != 2:
        raise type_check.InvalidType("x[0].ndim == 2", f"{x[0].ndim} != 2")
    frames = stack(list(x))
    labels = variable.as_array(t)
    xp = backend.get_array_module(labels)
    n_frame, n_batch, _ = frames.shape
    if input_length is None:
        input_length = xp.full(n_batch, n_frame, dtype=numpy.int32)
    if label_length is None:
        label_length = xp.full(len(labels), labels.shape[1], dtype=numpy.int32)
    input_length = variable.as_array(input_length)
    label_length = variable.as_array(label_length)
    _check_inputs(frames, labels, input_length, label_length)

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

    position = xp.arange(n_position)
    impossible_start = xp.where(position < 2, 0, _LOG_ZERO).astype(dtype)
    # A skip from s-2 is allowed only onto a label that differs from the one two back.
    can_skip = (position >= 2) & (path != xp.roll(path, 2, axis=1))
    skip_penalty = xp.where(can_skip, 0, _LOG_ZERO).astype(dtype)
    pad_one = xp.full((n_batch, 1), _LOG_ZERO, dtype=dtype)
    pad_two = xp.full((n_batch, min(2, n_position)), _LOG_ZERO, dtype=dtype)

    alpha = emitted[0] + xp.broadcast_to(impossible_start, (n_batch, n_position))
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
    before_last = before_last + xp.where(path_length > 1, 0, _LOG_ZERO).astype(dtype)
    loss = -logsumexp(stack([last, before_last], axis=1), axis=1)
    if reduce == "mean":
        return average(loss)
    return loss
