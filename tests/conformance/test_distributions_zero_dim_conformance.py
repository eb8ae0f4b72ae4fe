"""Distributions built from 0-dimensional parameters (one scalar distribution, batch shape
``()``) must evaluate and differentiate as the batched ones do. Checked against Chainer 7.8.1;
set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself (it needs SciPy there
for ``lgamma``).
"""

from __future__ import annotations

import importlib
import math
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
D = importlib.import_module(chainer.__name__ + ".distributions")


@pytest.mark.parametrize("x", [0.0, 1.0])
@pytest.mark.parametrize("use_logit", [False, True])
def test_bernoulli_log_prob_backward_with_zero_dim_parameter(x, use_logit):
    p = 0.3
    value = math.log(p / (1 - p)) if use_logit else p
    param = chainer.Variable(numpy.asarray(value, dtype=numpy.float32))
    dist = D.Bernoulli(logit=param) if use_logit else D.Bernoulli(p=param)
    log_prob = dist.log_prob(numpy.asarray(x, dtype=numpy.float32))
    log_prob.backward()
    assert log_prob.shape == ()
    numpy.testing.assert_allclose(log_prob.array, math.log(p if x else 1 - p), rtol=1e-5)
    # d/dlogit = x - p; d/dp = x/p - (1-x)/(1-p).
    expected = (x - p) if use_logit else (x / p - (1 - x) / (1 - p))
    numpy.testing.assert_allclose(param.grad, expected, rtol=1e-4)


def test_poisson_log_prob_and_backward_with_zero_dim_rate():
    lam = chainer.Variable(numpy.asarray(2.5, dtype=numpy.float32))
    log_prob = D.Poisson(lam).log_prob(numpy.asarray(3.0, dtype=numpy.float32))
    log_prob.backward()
    assert log_prob.shape == ()
    expected = 3 * math.log(2.5) - math.lgamma(4) - 2.5
    numpy.testing.assert_allclose(log_prob.array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(lam.grad, 3 / 2.5 - 1, rtol=1e-5)
