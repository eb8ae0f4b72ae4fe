"""Loss terms of variational auto-encoders: ``gaussian_kl_divergence``, ``gaussian_nll`` and
``bernoulli_nll``, composed from differentiable elementary functions.

Layer 5: imports variable and ``functions.math``; ``bernoulli_nll`` uses ``activation.softplus``
(imported on use).
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import variable
from chainer_compat.functions.activation.softplus import softplus
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.functions.math.average import average as _mean
from chainer_compat.functions.math.exponential import exp
from chainer_compat.functions.math.sum import sum as _sum

_REDUCTIONS = ("sum", "mean", "no")


def _reduce(loss: variable.Variable, reduce: str) -> variable.Variable:
    if reduce == "sum":
        return _sum(loss)
    if reduce == "mean":
        if loss.size == 0:
            return _sum(loss)
        # compat: NumPy's mean (a sum divided by the count), as Chainer's average takes it, not
        # the sum times 1 / count (NOTE [Chainer's rounding] in
        # functions/loss/softmax_cross_entropy.py).
        return _mean(loss)
    return loss


def gaussian_kl_divergence(mean: Any, ln_var: Any, reduce: str = "sum") -> variable.Variable:
    """KL divergence of the diagonal Gaussian ``N(mean, exp(ln_var))`` from ``N(0, I)``.

    Args:
        mean: The mean ``mu``.
        ln_var: The log variance ``log(sigma ** 2)``, of ``mean``'s shape.
        reduce: ``'sum'`` or ``'mean'`` over all elements, or ``'no'`` for elementwise terms.

    Returns:
        The divergence: shape ``()``, or ``mean``'s shape for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
    """
    check_reduce(reduce, _REDUCTIONS, "gaussian_kl_divergence")
    # compat: exp first, then the square, as Chainer applies them; an array mean is squared
    # as an array, without a node, as in Chainer.
    variance = exp(ln_var)
    mean_square = mean * mean
    loss = (mean_square + variance - ln_var - 1) * 0.5
    return _reduce(loss, reduce)


def bernoulli_nll(x: Any, y: Any, reduce: str = "sum") -> variable.Variable:
    """Negative log-likelihood of ``x`` under a Bernoulli distribution with ``p = sigmoid(y)``.

    Args:
        x: The observations (0 or 1, as floats).
        y: The pre-sigmoid parameter, of ``x``'s shape (e.g. a linear layer's output).
        reduce: ``'sum'`` or ``'mean'`` over all elements, or ``'no'`` for elementwise terms.

    Returns:
        The negative log-likelihood: shape ``()``, or ``x``'s shape for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
    """
    check_reduce(reduce, _REDUCTIONS, "bernoulli_nll")
    y = variable.as_variable(y)
    loss = softplus(y) - y * x
    return _reduce(loss, reduce)


def gaussian_nll(x: Any, mean: Any, ln_var: Any, reduce: str = "sum") -> variable.Variable:
    """Negative log-likelihood of ``x`` under ``N(mean, exp(ln_var))`` (diagonal).

    Args:
        x: The observations.
        mean: The mean ``mu``, of ``x``'s shape.
        ln_var: The log variance ``log(sigma ** 2)``, of ``x``'s shape.
        reduce: ``'sum'`` or ``'mean'`` over all elements, or ``'no'`` for elementwise terms.

    Returns:
        The negative log-likelihood: shape ``()``, or ``x``'s shape for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
    """
    check_reduce(reduce, _REDUCTIONS, "gaussian_nll")
    # compat: Chainer's order (the precision first) and its operands: arrays are combined
    # as arrays, without nodes.
    precision = exp(-ln_var)
    x_diff = x - mean
    x_power = (x_diff * x_diff) * precision * -0.5
    loss = (ln_var + math.log(2 * math.pi)) / 2 - x_power
    return _reduce(loss, reduce)
