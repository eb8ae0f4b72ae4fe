"""batch_normalization and fixed_batch_normalization round as Chainer's CPU code does, so seeded
runs print Chainer's losses to the last bit: y is ((x - mean) * inv_std) * gamma + beta, one
product at a time; training takes inv_std = 1 / sqrt(var + eps), the fixed function
sqrt(1 / (var + eps)); the gradients follow Chainer's grouping. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")

AXIS = (0, 2, 3)  # the statistics' axes of an (n, c, h, w) input with gamma of shape (c,)
EXPAND = (None, slice(None), None, None)
EPS = 2e-5

# (x's dtype, the parameters' dtype). A float16 x with float16 parameters is left out of the
# training cases: Chainer sums its statistics in float16 (saturating, and overflowing to inf
# for large batches), ours in float32.
TRAINING_DTYPES = [(numpy.float32, numpy.float32), (numpy.float16, numpy.float32),
                   (numpy.float64, numpy.float64)]
FIXED_DTYPES = [(numpy.float32, numpy.float32), (numpy.float16, numpy.float16),
                (numpy.float16, numpy.float32)]


def _arrays(x_dtype, dtype, seed):
    rng = numpy.random.RandomState(seed)
    x = (rng.standard_normal((8, 3, 4, 4)) * 2 + 1).astype(x_dtype)
    gamma, beta, mean = (rng.standard_normal(3).astype(dtype) for _ in range(3))
    var = (numpy.abs(rng.standard_normal(3)) + 0.5).astype(dtype)
    gy = rng.standard_normal(x.shape).astype(x_dtype)
    return x, gamma, beta, mean, var, gy


def _normalize(x, mean, inv_std, gamma, beta):
    x_hat = (x - mean[EXPAND]) * inv_std[EXPAND]
    return (x_hat * gamma[EXPAND] + beta[EXPAND]).astype(x.dtype)


@pytest.mark.parametrize("x_dtype, dtype", TRAINING_DTYPES)
@pytest.mark.parametrize("double", [False, True])
def test_training_output_gradients_and_running_averages_round_as_chainer(x_dtype, dtype,
                                                                         double):
    x, gamma, beta, running_mean, running_var, gy = _arrays(x_dtype, dtype, seed=0)
    decay = 0.9
    expected_mean = running_mean * dtype(decay)
    expected_var = running_var * dtype(decay)

    variables = [chainer.Variable(a) for a in (x, gamma, beta)]
    y = F.batch_normalization(*variables, eps=EPS, running_mean=running_mean,
                              running_var=running_var, decay=decay)
    mean = x.mean(axis=AXIS, dtype=dtype)
    var = x.var(axis=AXIS, dtype=dtype)
    inv_std = numpy.reciprocal(numpy.sqrt(var + dtype(EPS)))
    numpy.testing.assert_array_equal(y.array, _normalize(x, mean, inv_std, gamma, beta))
    count = x.size // gamma.size
    expected_mean += dtype(1 - decay) * mean
    expected_var += dtype((1 - decay) * (count / (count - 1))) * var  # unbiased
    numpy.testing.assert_array_equal(running_mean, expected_mean)
    numpy.testing.assert_array_equal(running_var, expected_var)

    y.grad = gy
    y.backward(enable_double_backprop=double)
    x_hat = (x - mean[EXPAND]) * inv_std[EXPAND]
    g_beta = gy.sum(axis=AXIS, dtype=dtype)
    g_gamma = (gy * x_hat).sum(axis=AXIS, dtype=dtype)
    projection = (x_hat * g_gamma[EXPAND] + g_beta[EXPAND]) * dtype(1.0 / count)
    gx = (gamma * inv_std)[EXPAND] * (gy - projection)
    numpy.testing.assert_array_equal(variables[0].grad, gx.astype(x_dtype))
    numpy.testing.assert_array_equal(variables[1].grad, g_gamma)
    numpy.testing.assert_array_equal(variables[2].grad, g_beta)


@pytest.mark.parametrize("x_dtype, dtype", FIXED_DTYPES)
@pytest.mark.parametrize("double", [False, True])
def test_fixed_output_and_gradients_round_as_chainer(x_dtype, dtype, double):
    arrays = _arrays(x_dtype, dtype, seed=1)
    x, gamma, beta, mean, var, gy = arrays
    variables = [chainer.Variable(a) for a in arrays[:5]]
    y = F.fixed_batch_normalization(*variables, eps=EPS)
    inv_var = numpy.reciprocal(var + dtype(EPS))
    inv_std = numpy.sqrt(inv_var)
    numpy.testing.assert_array_equal(y.array, _normalize(x, mean, inv_std, gamma, beta))

    y.grad = gy
    y.backward(enable_double_backprop=double)
    gamma_over_std = gamma * inv_std
    x_hat = (x - mean[EXPAND]) * inv_std[EXPAND]
    g_beta = gy.sum(axis=AXIS, dtype=dtype)
    g_gamma = (x_hat * gy).sum(axis=AXIS).astype(dtype)
    expected = [
        (gamma_over_std[EXPAND] * gy).astype(x_dtype),
        g_gamma,
        g_beta,
        -gamma_over_std * g_beta,
        (inv_var * dtype(-0.5)) * (gamma * g_gamma),
    ]
    for variable, grad in zip(variables, expected):
        numpy.testing.assert_array_equal(variable.grad, grad)
