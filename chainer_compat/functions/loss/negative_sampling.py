"""``negative_sampling``: the word2vec loss that contrasts each target with sampled negatives.

Layer 5: imports backend, utils, variable, type_check and the activation, array, connection and
math functions.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.activation.softplus import softplus
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.sum import sum as sum_over
from chainer_compat.utils import argument, type_check

# Rows of ``t`` with this label contribute nothing.
_IGNORE_LABEL = -1


def _check_inputs(x: variable.Variable, t: Any, W: variable.Variable) -> None:  # noqa: N803
    checks = [
        ("x.dtype.kind == f", x.dtype.kind == "f", f"{x.dtype.kind} != f"),
        ("x.ndim == 2", x.ndim == 2, f"{x.ndim} != 2"),
        ("t.dtype == int32", t.dtype == numpy.int32, f"{t.dtype} != int32"),
        ("t.ndim == 1", t.ndim == 1, f"{t.ndim} != 1"),
        ("x.shape[0] == t.shape[0]", x.ndim == 0 or t.ndim == 0 or x.shape[0] == t.shape[0],
         f"{x.shape[:1]} != {t.shape[:1]}"),
        ("W.dtype == x.dtype", W.dtype == x.dtype, f"{W.dtype} != {x.dtype}"),
        ("W.ndim == 2", W.ndim == 2, f"{W.ndim} != 2"),
    ]
    for expect, holds, actual in checks:
        if not holds:
            raise type_check.InvalidType(expect, actual)


def negative_sampling(x: Any, t: Any, W: Any, sampler: Any, sample_size: int,  # noqa: N803
                      reduce: str = "sum", **kwargs: Any) -> Any:
    """Negative sampling loss (Mikolov et al., 2013).

    For each example ``i`` the sampler draws ``sample_size`` negative ids ``n_ik``; the loss is
    ``softplus(-x_i . W[t_i]) + sum_k softplus(x_i . W[n_ik])``, that is ``-log sigmoid`` of the
    target's score plus ``-log sigmoid(-score)`` of each negative's. Examples whose label is -1
    contribute zero. Built from differentiable functions, so it can be differentiated twice.

    Args:
        x: Input vectors of shape ``(N, D)``.
        t: ``int32`` target ids of shape ``(N,)``; -1 ignores the example.
        W: Output embeddings of shape ``(V, D)``, in ``x``'s dtype.
        sampler: Callable taking a shape and returning an integer array of ids of that shape,
            such as ``WalkerAlias(counts).sample``. It is called with ``(N, sample_size + 1)``;
            column 0 is then overwritten with ``t``.
        sample_size: Number of negatives per example.
        reduce: ``'sum'`` adds the losses of all examples; ``'no'`` keeps them.
        return_samples (bool): If True, ``(loss, samples)`` is returned, ``samples`` being the
            ``(N, sample_size + 1)`` ids used, ``t`` in column 0.

    Returns:
        The loss: shape ``()``, or ``(N,)`` for ``'no'``; with ``return_samples``, also the ids.

    Raises:
        ValueError: On an invalid ``reduce``.
        TypeError: On an unknown keyword argument.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    return_samples, = argument.parse_kwargs(kwargs, ("return_samples", False))
    check_reduce(reduce, ("sum", "no"), "negative_sampling")
    x = variable.as_variable(x)
    W = variable.as_variable(W)  # noqa: N806
    labels = variable.as_array(t)
    _check_inputs(x, labels, W)
    xp = backend.get_array_module(labels)

    samples = xp.array(sampler((len(labels), sample_size + 1)), dtype=numpy.int32, copy=True)
    samples[:, 0] = labels
    kept = labels != _IGNORE_LABEL
    lookup = samples.copy()
    lookup[:, 0] = xp.where(kept, labels, 0)  # any valid id: the row's loss is masked out

    rows = embed_id(lookup, W)
    scores = sum_over(rows * broadcast_to(x[:, None, :], rows.shape), axis=2)
    # The target's score is negated: softplus(-s) = -log sigmoid(s).
    signs = xp.ones(scores.shape, dtype=x.dtype)
    signs[:, 0] = -1
    losses = sum_over(softplus(scores * signs), axis=1) * kept.astype(x.dtype)
    loss = sum_over(losses) if reduce == "sum" else losses
    if return_samples:
        return loss, samples
    return loss
