"""layer_normalization rounds as Chainer's CPU code does, so seeded runs print Chainer's losses
to the last bit: y = ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta, and the gradient of x
is the chain rule taken back through each of those steps in turn. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")

EPS = 1e-5


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("shape", [(8, 12), (3, 40)])
@pytest.mark.parametrize("double", [False, True])
def test_output_and_gradients_round_as_chainer(dtype, shape, double):
    rng = numpy.random.RandomState(0)
    x, gy = ((rng.standard_normal(shape) * 3).astype(dtype) for _ in range(2))
    gamma, beta = (rng.standard_normal(shape[1]).astype(dtype) for _ in range(2))
    variables = [chainer.Variable(a) for a in (x, gamma, beta)]
    y = F.layer_normalization(*variables, eps=EPS)

    x_mu = x - x.mean(axis=1, keepdims=True)
    var_eps = numpy.square(x_mu).mean(axis=1, keepdims=True) + dtype(EPS)
    inv_std = dtype(1) / numpy.sqrt(var_eps)
    x_hat = x_mu * inv_std
    numpy.testing.assert_array_equal(y.array, x_hat * gamma + beta)

    y.grad = gy
    y.backward(enable_double_backprop=double)
    units = dtype(1.0 / shape[1])
    g_x_hat = gy * gamma
    g_inv_std = (g_x_hat * x_mu).sum(axis=1, keepdims=True)
    g_var = g_inv_std * (dtype(-1) / var_eps) * dtype(0.5) * inv_std
    g_x_1 = g_x_hat * inv_std + g_var * units * dtype(2) * x_mu  # directly and through var
    g_mean = g_x_1.sum(axis=1, keepdims=True) * dtype(-1)
    numpy.testing.assert_array_equal(variables[0].grad, g_x_1 + g_mean * units)
    numpy.testing.assert_array_equal(variables[1].grad, (gy * x_hat).sum(axis=0))
    numpy.testing.assert_array_equal(variables[2].grad, gy.sum(axis=0))
