"""Pure float16 batch and group normalization on NumPy run NumPy's float16 steps in float32
(NOTE [float16 steps in float32]): outputs, gradients and second-order gradients must be the
general path's to the bit, on data with tiny, large and subnormal values."""

from __future__ import annotations

import warnings

import numpy
import pytest

import chainer_compat as chainer
import chainer_compat.functions as F
from chainer_compat.functions.normalization import batch_normalization, group_normalization


def _case(seed):
    rng = numpy.random.RandomState(seed)
    n, groups = rng.randint(2, 6), [1, 2, 4][rng.randint(3)]
    c = groups * rng.randint(1, 4)
    shape = (n, c, rng.randint(1, 7), rng.randint(1, 7))
    x = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 2)
         + rng.uniform(-3, 3)).astype(numpy.float16)
    gamma = rng.uniform(0.5, 1.5, c).astype(numpy.float16)
    beta = rng.uniform(-1, 1, c).astype(numpy.float16)
    # Gradients from 1e-5 (mostly float16 subnormals) to 10.
    gy = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-5, 1)).astype(numpy.float16)
    return x, gamma, beta, gy, groups


def _run(function, x, gamma, beta, gy):
    variables = [chainer.Variable(a) for a in (x, gamma, beta)]
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        y = function(*variables)
        y.grad = gy
        y.backward(enable_double_backprop=True)
        first = [y.array] + [v.grad for v in variables]
        again = F.sum(variables[0].grad_var * variables[0].grad_var)
        for v in variables:
            v.cleargrad()
        again.backward()
    return first + [variables[0].grad, variables[1].grad]


def _same(results, expected):
    for a, b in zip(results, expected, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", range(12))
def test_batch_normalization_matches_the_general_path(seed, monkeypatch):
    x, gamma, beta, gy, _ = _case(seed)

    def function(*variables):
        return F.batch_normalization(*variables)

    fast = _run(function, x, gamma, beta, gy)
    monkeypatch.setattr(batch_normalization, "_pure_float16", lambda *arrays: False)
    monkeypatch.setattr(batch_normalization, "float16_steps", _native_steps)
    monkeypatch.setattr(batch_normalization, "round_to_float16", _cast_round_trip)
    _same(fast, _run(function, x, gamma, beta, gy))


@pytest.mark.parametrize("seed", range(12))
def test_group_normalization_matches_the_general_path(seed, monkeypatch):
    x, gamma, beta, gy, groups = _case(seed)

    def function(x, gamma, beta):
        return F.group_normalization(x, groups, gamma, beta)

    fast = _run(function, x, gamma, beta, gy)
    monkeypatch.setattr(group_normalization, "_pure_float16", lambda *arrays: False)
    _same(fast, _run(function, x, gamma, beta, gy))


def _native_steps(first, *steps):
    """NumPy's own float16 loops, one step at a time: what the fast path stands in for."""
    for ufunc, operand in steps:
        first = ufunc(first, operand)
    return first


def _cast_round_trip(values):
    """NumPy's rounding of float32 values to float16 precision."""
    numpy.copyto(values, values.astype(numpy.float16))
