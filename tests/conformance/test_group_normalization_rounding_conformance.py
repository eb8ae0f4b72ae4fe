"""group_normalization rounds as Chainer's CPU code does, to the last bit: the group mean in the
normalizing dtype (from NumPy's float16 sum in pure float16), the variance by NumPy's mean, the
scale 1 / sqrt(var + eps), and the input gradient inv_std * (gx_hat - mean(gx_hat) - x_hat *
mean(gx_hat * x_hat)). Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest
from numpy_sum_reference import float16_sum_of_runs

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _expected(x, gamma, beta, gy, groups, eps):
    dtype = numpy.promote_types(x.dtype, gamma.dtype)
    batch_size, channels = x.shape[:2]
    grouped = x.reshape(batch_size * groups, -1)
    if dtype == numpy.float16:
        # The group's float16 sum, divided by the count and rounded once.
        total = float16_sum_of_runs(grouped[None]).astype(numpy.float64)[:, None]
        mean = (total / grouped.shape[1]).astype(numpy.float16)
    else:
        mean = grouped.mean(axis=1, keepdims=True, dtype=dtype)
    x_hat = grouped - mean
    var = (x_hat * x_hat).mean(axis=1, keepdims=True)
    inv_std = numpy.reciprocal(numpy.sqrt(var + dtype.type(eps)))
    x_hat = x_hat * inv_std
    by_channel = x_hat.reshape(batch_size, channels, -1)
    gamma_column = gamma.astype(dtype)[:, None]
    y = by_channel * gamma_column + beta.astype(dtype)[:, None]

    gy_wide = gy.astype(dtype).reshape(batch_size, channels, -1)
    gx_hat = (gy_wide * gamma_column).reshape(grouped.shape)
    gx = gx_hat - gx_hat.mean(axis=1, keepdims=True)
    gx = gx - x_hat * (gx_hat * x_hat).mean(axis=1, keepdims=True)
    gx = inv_std * gx
    if dtype == numpy.float16:
        ggamma = float16_sum_of_runs(gy_wide * by_channel)
        gbeta = float16_sum_of_runs(gy_wide)
    else:
        ggamma = (gy_wide * by_channel).sum(axis=(0, 2))
        gbeta = gy_wide.sum(axis=(0, 2))
    return (y.reshape(x.shape).astype(x.dtype), gx.reshape(x.shape).astype(x.dtype),
            ggamma.astype(gamma.dtype), gbeta.astype(gamma.dtype))


@pytest.mark.parametrize("x_dtype, parameter_dtype", [
    (numpy.float16, numpy.float32),
    (numpy.float32, numpy.float32),
    (numpy.float16, numpy.float16),
])
@pytest.mark.parametrize("shape, groups", [((4, 6, 3, 3), 2), ((3, 8), 4), ((2, 6, 9, 9), 3)])
def test_values_and_gradients_round_as_chainer(x_dtype, parameter_dtype, shape, groups):
    rng = numpy.random.RandomState(0)
    x = (rng.standard_normal(shape) * 3 + 1).astype(x_dtype)
    gamma = rng.standard_normal(shape[1]).astype(parameter_dtype)
    beta = rng.standard_normal(shape[1]).astype(parameter_dtype)
    gy = rng.standard_normal(shape).astype(x_dtype)
    variables = [chainer.Variable(a) for a in (x, gamma, beta)]
    y = F.group_normalization(variables[0], groups, variables[1], variables[2])
    y.grad = gy
    y.backward()
    expected = _expected(x, gamma, beta, gy, groups, 1e-5)
    numpy.testing.assert_array_equal(y.array, expected[0])
    for variable, expected_grad in zip(variables, expected[1:]):
        numpy.testing.assert_array_equal(variable.grad, expected_grad)
