"""``black_out``: the BlackOut loss, a sampled approximation of softmax cross entropy over a
large vocabulary.

Layer 5: imports variable and the array, connection and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.connection.embed_id import embed_id
from chainer_compat.functions.math.average import average
from chainer_compat.functions.math.exponential import exp
from chainer_compat.functions.math.logarithm_1p import log1p
from chainer_compat.functions.math.logsumexp import logsumexp
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
    negative_rows = embed_id(samples, W)
    x_rows = broadcast_to(x[:, None, :], negative_rows.shape)
    negative_scores = sum_over(negative_rows * x_rows, axis=2)
    positive_scores = sum_over(embed_id(t, W) * x, axis=1)
    log_partition = logsumexp(concat([positive_scores[:, None], negative_scores], axis=1),
                              axis=1)
    shifted = negative_scores - broadcast_to(log_partition[:, None], negative_scores.shape)
    negative_terms = sum_over(log1p(-exp(shifted)), axis=1)
    loss = -(positive_scores - log_partition + negative_terms)
    # compat: any reduce other than 'mean' keeps the per-example losses, as in Chainer.
    if reduce == "mean":
        return average(loss)
    return loss
