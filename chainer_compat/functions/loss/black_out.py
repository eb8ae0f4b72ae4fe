"""``black_out``: the BlackOut loss, a sampled approximation of softmax cross entropy over a
large vocabulary.

Layer 5: imports variable and the array, connection and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array.broadcast import broadcast
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.expand_dims import expand_dims
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.functions.math.average import average
from chainer_compat.functions.math.exponential import exp, log
from chainer_compat.functions.math.logsumexp import logsumexp
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.functions.math.sum import sum as sum_over


def black_out(x: Any, t: Any, W: Any, samples: Any,  # noqa: N803 - Chainer's names
              reduce: str = "mean") -> variable.Variable:
    """BlackOut loss (Ji et al., 2016).

    With ``p_i = x . W[t]`` and ``n_ik = x . W[samples_ik]`` for example ``i``, and ``log Z_i``
    the log-sum-exp of ``p_i`` and all ``n_ik``, the loss is
    ``-(p_i - log Z_i + sum_k log(1 - exp(n_ik - log Z_i)))``: the target is pushed up and
    every sampled negative down, in a softmax restricted to the sampled ids. Built from
    differentiable functions, so it can be differentiated twice.

    Args:
        x: Input vectors of shape ``(N, D)``.
        t: Target ids of shape ``(N,)`` (signed integers).
        W: Output embeddings of shape ``(V, D)``.
        samples: Negative ids of shape ``(N, S)``; they should not contain the target.
        reduce: ``'mean'`` averages the losses over the batch; any other value keeps them.

    Returns:
        The loss: shape ``()``, or ``(N,)`` without ``'mean'``.
    """
    x = variable.as_variable(x)
    batch_size = x.shape[0]
    # compat: Chainer's composition, step for step, so the loss and gradients round as its
    # do: the scores as batched matrix products, and log(1 - exp(.)) rather than log1p.
    column = x[:, :, None]
    negative_scores = matmul(embed_id(samples, W), column)
    negative_scores = reshape(negative_scores, negative_scores.shape[:-1])
    positive_scores = matmul(expand_dims(embed_id(t, W), 1), column)
    positive_scores = reshape(positive_scores, positive_scores.shape[:-1])
    log_partition = logsumexp(concat([positive_scores, negative_scores]), axis=1)
    broadcast_partition, broadcast_negatives = broadcast(
        reshape(log_partition, (batch_size, 1)), negative_scores)
    negative_terms = log(1 - exp(broadcast_negatives - broadcast_partition))
    loss = -(reshape(positive_scores, (batch_size,)) - log_partition
             + sum_over(negative_terms, axis=1))
    # compat: any reduce other than 'mean' keeps the per-example losses, as in Chainer.
    if reduce == "mean":
        return average(loss)
    return loss
