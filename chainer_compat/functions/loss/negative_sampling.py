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


class _InputTypes:
    """The type checks of :func:`negative_sampling`, run under the label of Chainer's
    ``NegativeSamplingFunction`` so that a failure reads as Chainer's does."""

    label = "NegativeSamplingFunction"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t", "W"))
        x_type, t_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 2,
            t_type.dtype == numpy.int32,
            t_type.ndim == 1,
        )
        # A second call: a light check reads shape[0] at once, so the ndims must hold first.
        type_check.expect(
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
        )


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
    type_check._check_types_forward(_InputTypes(), (x.array, labels, W.array))
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
