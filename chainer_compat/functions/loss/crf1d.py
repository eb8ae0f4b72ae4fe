"""``crf1d`` and ``argmax_crf1d``: a linear-chain conditional random field over variable-length
sequences given time-major (``transpose_sequence`` layout: batch sizes never grow).

Layer 5: imports variable and the array, connection and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.functions.array.broadcast import broadcast
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.select_item import select_item
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.logsumexp import logsumexp
from chainer_compat.functions.math.minmax import argmax
from chainer_compat.functions.math.minmax import max as max_of
from chainer_compat.functions.math.sum import sum as sum_all
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import AssertValueError


def _check_labels(cost: Any, xs: Any) -> None:
    if len(xs) == 0:  # xs may be a (T, B, K) array as well as a list
        raise ValueError("xs of crf1d must hold at least one time step, got an empty sequence")
    if xs[0].shape[1] != cost.shape[0]:
        # compat: Chainer asserts this; the error is both of the types code may catch.
        raise AssertValueError(
            f"xs[0].shape[1] of crf1d must equal the number of labels cost.shape[0] = "
            f"{cost.shape[0]}, got {xs[0].shape[1]}")


def _check_argmax_inputs(cost: Any, xs: Any) -> None:
    """Checks what Chainer's ``argmax_crf1d`` rejects in its first Broadcast node: a ``cost``
    that is not an array (TypeError) and shapes that do not line up (InvalidType)."""
    if len(xs) == 0:
        raise ValueError("xs of argmax_crf1d must hold at least one time step, got an empty "
                         "sequence")
    if not isinstance(cost, variable.Variable) and not backend.is_array(cost):
        first = variable.as_array(xs[0]) if isinstance(xs[0], variable.Variable) else xs[0]
        # compat: Chainer's Broadcast node's first two lines; then what to do.
        raise TypeError(
            "incompatible array types are mixed in the forward input (Broadcast).\n"
            f"Actual: {type(first)}, {type(cost)}\n"
            f"cost of argmax_crf1d must be a Variable or a NumPy/CuPy array, got "
            f"{type(cost).__name__}: wrap it with numpy.asarray()")
    shapes = [tuple(x.shape) for x in xs]
    labels = shapes[0][1] if len(shapes[0]) == 2 else None
    bad = [t for t, shape in enumerate(shapes) if len(shape) != 2 or shape[1] != labels]
    cost_shape = tuple(cost.shape)
    cost_fits = labels is not None and len(cost_shape) <= 2 and all(
        size in (1, labels) for size in cost_shape)
    if bad or not cost_fits:
        expect = "xs[t].shape == (B_t, K) for every t, and cost.shape == (K, K)"
        actual = f"xs shapes: {shapes}, cost.shape: {cost_shape}"
        raise type_check.InvalidType(
            expect, actual,
            "each xs[t] of argmax_crf1d must have shape (B_t, K) and cost shape (K, K), with "
            f"K the number of labels, got xs[{bad[0] if bad else 0}].shape="
            f"{shapes[bad[0] if bad else 0]} and cost.shape={cost_shape}\n"
            f"Expect: {expect}\nActual: {actual}")


def _split_finished(value: Any, batch: int, finished: list[Any]) -> Any:
    """Keeps the first ``batch`` rows of ``value``; the rest, whose sequences ended, go to
    ``finished``."""
    if value.shape[0] > batch:
        value, rest = split_axis(value, [batch], axis=0)
        finished.append(rest)
    return value


def _rejoin(value: Any, finished: list[Any]) -> Any:
    """Puts the rows of finished sequences back below ``value``, longest sequence first."""
    if not finished:
        return value
    return concat([value] + finished[::-1], axis=0)


def crf1d(cost: Any, xs: Any, ys: Any, reduce: str = "mean") -> variable.Variable:
    """Negative log-likelihood of label sequences under a linear-chain CRF.

    The score of a path ``y`` of sequence ``b`` is ``sum_t xs[t][b, y_t] + sum_t cost[y_{t-1},
    y_t]``; the loss is ``log Z - score(ys)`` with ``Z`` the sum of ``exp(score)`` over all
    paths, computed with the forward algorithm. Sequences are given time-major and sorted by
    length, longest first (as :func:`transpose_sequence` makes them), so ``xs[t]`` holds the
    ``B_t`` sequences still running at step ``t``. Built from differentiable functions, so it
    can be differentiated twice.

    Args:
        cost: Transition scores of shape ``(K, K)``: ``cost[i, j]`` scores label ``i`` followed
            by ``j``.
        xs: List of ``T`` emission scores, ``xs[t]`` of shape ``(B_t, K)`` with
            ``B_0 >= B_1 >= ...``.
        ys: List of ``T`` label arrays, ``ys[t]`` of shape ``(B_t,)`` (signed integers).
        reduce: ``'mean'`` averages the loss over the ``B_0`` sequences; ``'no'`` keeps it.

    Returns:
        The loss: shape ``()``, or ``(B_0,)`` for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``, or when ``xs[0]`` does not have ``K`` columns.
    """
    check_reduce(reduce, ("mean", "no"), "crf1d")
    _check_labels(cost, xs)
    ys = [variable.as_array(y) for y in ys]
    n_label = cost.shape[0]
    n_batch = xs[0].shape[0]

    # Forward algorithm: alpha[b, j] = log of the summed exp-scores of the paths ending in j.
    alpha = xs[0]
    finished: list[Any] = []
    for x in xs[1:]:
        alpha = _split_finished(alpha, x.shape[0], finished)
        from_label, transition = broadcast(alpha[..., None], cost)
        alpha = logsumexp(from_label + transition, axis=1) + x
    log_partition = logsumexp(_rejoin(alpha, finished), axis=1)

    flat_cost = reshape(cost, (n_label * n_label, 1))
    score = select_item(xs[0], ys[0])
    finished = []
    for x, y, y_previous in zip(xs[1:], ys[1:], ys[:-1]):
        batch = x.shape[0]
        if score.shape[0] > batch:
            # compat: the previous labels are split as a node too, and their transition index
            # computed on Variables, as in Chainer.
            y_previous, _ = split_axis(y_previous, [batch], axis=0)
        score = _split_finished(score, batch, finished)
        # compat: the step's two terms added first, then to the score, as Chainer adds them.
        emitted = select_item(x, y)
        transition = reshape(embed_id(y_previous * n_label + y, flat_cost), (batch,))
        score = score + (emitted + transition)
    loss = log_partition - _rejoin(score, finished)
    if reduce == "mean":
        return sum_all(loss) / n_batch
    return loss


def argmax_crf1d(cost: Any, xs: Any) -> tuple[variable.Variable, list[Any]]:
    """The highest-scoring label path of each sequence under a linear-chain CRF (Viterbi).

    Args:
        cost: Transition scores of shape ``(K, K)`` (see :func:`crf1d`).
        xs: List of ``T`` emission scores, ``xs[t]`` of shape ``(B_t, K)``, time-major and
            sorted by length, longest first.

    Returns:
        ``(score, path)``: ``score`` is a Variable of shape ``(B_0,)`` with each best path's
        score; ``path`` is a list of ``T`` integer arrays, ``path[t]`` of shape ``(B_t,)``.

    Raises:
        TypeError: If ``cost`` is not a Variable or an array.
        ValueError: If ``xs`` is empty.
        chainer_compat.utils.type_check.InvalidType: If an ``xs[t]`` is not of shape
            ``(B_t, K)`` or ``cost`` does not broadcast to ``(K, K)``.
    """
    _check_argmax_inputs(cost, xs)
    alpha = variable.as_variable(xs[0])
    # Per step: the rows of sequences that ended before it (or None), and the back-pointers.
    finished_at: list[Any] = []
    best_previous: list[Any] = []
    for x in xs[1:]:
        batch = x.shape[0]
        if alpha.shape[0] > batch:
            alpha, rest = split_axis(alpha, [batch], axis=0)
            finished_at.append(rest)
        else:
            finished_at.append(None)
        from_label, transition = broadcast(alpha[..., None], cost)
        candidates = from_label + transition
        best_previous.append(argmax(candidates, axis=1))
        alpha = max_of(candidates, axis=1) + x

    labels = argmax(alpha, axis=1)
    path = [labels.array]
    score = max_of(alpha, axis=1)
    for pointers, rest in zip(best_previous[::-1], finished_at[::-1]):
        labels = select_item(pointers, labels)
        if rest is not None:
            labels = concat([labels, argmax(rest, axis=1)], axis=0)
            score = concat([score, max_of(rest, axis=1)], axis=0)
        path.append(labels.array)
    path.reverse()
    return score, path
