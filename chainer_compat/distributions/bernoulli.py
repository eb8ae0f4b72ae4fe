"""``Bernoulli``: the distribution of one biased coin flip, with its KL divergence.

Layer 8: imports distribution, function_node, functions, utils and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, distribution, function_node, utils, variable
from chainer_compat import functions as F
from chainer_compat.distribution import _cached_property
from chainer_compat.distributions import utils as dutils

__all__ = ["Bernoulli"]


class BernoulliLogProb(function_node.FunctionNode):
    """``log p(x)`` from the logit; differentiable in the logit only.

    An infinite logit is a certain outcome, so the value is ``log x`` or ``log(1 - x)`` there
    (0 or -inf) and the gradient is NaN. Finite logits too large for Chainer's arithmetic give
    finite values here, where Chainer's give -inf.
    """

    def __init__(self, binary_check: bool = False) -> None:
        super().__init__()
        self.binary_check = binary_check

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        logit, x = inputs
        xp = backend.get_array_module(logit, x)
        with numpy.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # compat: Chainer's arithmetic, logit (x - 1) - log(exp(-logit) + 1), so the bits
            # are Chainer's. Where exp(-logit) overflows (logit below about -88 in float32)
            # Chainer's value is -inf; there x logit - softplus(logit), written to stay finite,
            # takes its place.
            y = logit * (x - 1) - xp.log(xp.exp(-logit) + 1)
            softplus = xp.maximum(logit, 0) + xp.log1p(xp.exp(-xp.abs(logit)))
            y = xp.where(xp.isinf(y) & xp.isfinite(logit), x * logit - softplus, y)
            infinite = xp.isinf(logit)
            y = xp.where(infinite & (logit > 0), xp.log(x), y)
            y = xp.where(infinite & (logit < 0), xp.log1p(-x), y)
        if self.binary_check:
            y = xp.where((x != 0) & (x != 1), -xp.inf, y)
        return (utils.force_array(y, logit.dtype),)

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (grad,) = grad_outputs
        logit, x = self.get_retained_inputs()
        xp = backend.get_array_module(logit)
        invalid = xp.isinf(logit.array)
        if self.binary_check:
            invalid = invalid | ((x.array != 0) & (x.array != 1))
        # A 0-dimensional logit makes these numpy.bool_ scalars, which F.where refuses.
        invalid = xp.asarray(invalid)
        # compat: x - 1 / (1 + exp(-logit)), as Chainer rounds it (not F.sigmoid's tanh form).
        logit_grad = F.where(invalid, xp.full(invalid.shape, xp.nan, logit.dtype),
                             x - 1.0 / (1.0 + F.exp(-logit)))
        return (F.sum_to(grad * logit_grad, logit.shape), None)


def _bernoulli_log_prob(logit: Any, x: Any, binary_check: bool = False) -> variable.Variable:
    x = variable.as_array(x)
    logit = variable.as_variable(logit)
    shape = numpy.broadcast_shapes(logit.shape, x.shape)
    if logit.shape != shape:
        logit = F.broadcast_to(logit, shape)
    xp = backend.get_array_module(logit)
    x = xp.broadcast_to(xp.asarray(x, dtype=logit.dtype), shape)
    return BernoulliLogProb(binary_check).apply((logit, x))[0]


class Bernoulli(distribution.Distribution):
    """The Bernoulli distribution: 1 with probability ``p``, 0 otherwise.

    Args:
        p: The probability of 1; give it or ``logit``, not both.
        logit: ``log(p / (1 - p))``.
        binary_check: If True, ``log_prob`` and ``prob`` treat values other than 0 and 1 as
            impossible (``-inf`` and 0) instead of evaluating the continuous relaxation.

    Raises:
        ValueError: If neither or both of ``p`` and ``logit`` are given.
    """

    def __init__(self, p: Any = None, logit: Any = None, binary_check: bool = False) -> None:
        super().__init__()
        if (p is None) == (logit is None):
            given = "both" if p is not None else "neither"
            raise ValueError(f"Bernoulli must get exactly one of `p` and `logit`, got {given}")
        self._p_input = p
        self._logit_input = logit
        self.binary_check = binary_check

    @_cached_property
    def p(self) -> variable.Variable:
        """The probability of 1."""
        if self._p_input is not None:
            return variable.as_variable(self._p_input)
        return F.sigmoid(self.logit)

    @_cached_property
    def logit(self) -> variable.Variable:
        """The log-odds of 1."""
        if self._logit_input is not None:
            return variable.as_variable(self._logit_input)
        return F.log(self.p) - F.log1p(-self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def entropy(self) -> variable.Variable:
        p = self.p
        return -dutils._modified_xlogx(p) - dutils._modified_xlogx(1 - p)

    def log_prob(self, x: Any) -> variable.Variable:
        return _bernoulli_log_prob(self.logit, x, self.binary_check)

    def prob(self, x: Any) -> variable.Variable:
        x = variable.as_variable(x)
        prob = x * self.p + (1 - x) * (1 - self.p)
        if self.binary_check:
            xp = backend.get_array_module(x)
            valid = (x.array == 0) | (x.array == 1)
            prob = prob * xp.asarray(valid, dtype=prob.dtype)
        return prob

    @_cached_property
    def mean(self) -> variable.Variable:
        return self.p

    @_cached_property
    def variance(self) -> variable.Variable:
        return self.p * (1 - self.p)

    @_cached_property
    def stddev(self) -> variable.Variable:
        return self.variance ** 0.5

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"logit": self.logit}

    @property
    def support(self) -> str:
        return "{0, 1}"

    def sample_n(self, n: int) -> variable.Variable:
        """Draws 0/1 samples as integers (not differentiable)."""
        xp = dutils._array_module(self.p)
        return variable.Variable(xp.random.binomial(1, self.p.array, size=(n,) + self.p.shape))


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1: Bernoulli, dist2: Bernoulli) -> variable.Variable:
    # KL = (logit1 - logit2) p1 - softplus(logit1) + softplus(logit2).
    return ((dist1.logit - dist2.logit) * dist1.p - F.softplus(dist1.logit)
            + F.softplus(dist2.logit))
