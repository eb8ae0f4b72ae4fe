"""batch_normalization and fixed_batch_normalization round as Chainer's CPU code does, so seeded
runs print Chainer's losses to the last bit: y is ((x - mean) * inv_std) * gamma + beta, one
product at a time; training takes inv_std = 1 / sqrt(var + eps), the fixed function
sqrt(1 / (var + eps)); the gradients follow Chainer's grouping. In pure float16 the batch
statistics come from NumPy's float16 sums, each divided by the count and rounded once. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest
from numpy_sum_reference import float16_sum_of_runs

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")

AXIS = (0, 2, 3)  # the statistics' axes of an (n, c, h, w) input with gamma of shape (c,)
EXPAND = (None, slice(None), None, None)
EPS = 2e-5

# (x's dtype, the parameters' dtype). Pure float16 training, whose statistics come from float16
# sums, has its own tests below.
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


def _float16_sum(x, axis):
    """NumPy's float16 sum of a C-contiguous x over ``axis`` (the first axis and the trailing
    ones): each contiguous run of the trailing axes summed in float32, added to the float16
    total of its entry, sample after sample."""
    kept = [size for i, size in enumerate(x.shape) if i not in axis]
    runs = x.reshape(x.shape[0], int(numpy.prod(kept)), -1)
    return float16_sum_of_runs(runs).reshape(kept)


def _float16_mean(x, axis):
    count = x.size // _float16_sum(x, axis).size
    return (_float16_sum(x, axis).astype(numpy.float64) / count).astype(numpy.float16)


def _expander(x, axis):
    return tuple(None if i in axis else slice(None) for i in range(x.ndim))


# (x's shape, gamma's shape, axis): runs of 4, 16 and 3 values, and none (axis 0 of a matrix).
FLOAT16_CASES = [((8, 3, 2, 2), (3,), None), ((6, 3, 4, 4), (3,), None),
                 ((6, 4, 3), (4,), (0, 2)), ((10, 3), (3,), 0), ((4, 3, 2), (3, 2), None)]


@pytest.mark.parametrize("shape, gamma_shape, axis", FLOAT16_CASES)
@pytest.mark.parametrize("running", [False, True])
@pytest.mark.parametrize("double", [False, True])
def test_float16_training_takes_statistics_from_float16_sums(shape, gamma_shape, axis, running,
                                                             double):
    rng = numpy.random.RandomState(4)
    f16 = numpy.float16
    x = (rng.standard_normal(shape) * 2 + 1).astype(f16)
    gamma = rng.uniform(0.5, 1.5, gamma_shape).astype(f16)
    beta = rng.uniform(-1, 1, gamma_shape).astype(f16)
    gy = rng.standard_normal(shape).astype(f16)
    running_mean = rng.uniform(-1, 1, gamma_shape).astype(f16)
    running_var = rng.uniform(0.5, 2, gamma_shape).astype(f16)
    decay = 0.9
    expected_running_mean = running_mean * f16(decay)
    expected_running_var = running_var * f16(decay)
    kwargs = {} if axis is None else {"axis": axis}
    if running:
        kwargs.update(running_mean=running_mean, running_var=running_var, decay=decay)
    variables = [chainer.Variable(a) for a in (x, gamma, beta)]
    y = F.batch_normalization(*variables, eps=EPS, **kwargs)

    statistics_axis = (0,) + tuple(range(len(gamma_shape) + 1, len(shape)))
    if axis is not None:
        statistics_axis = (axis,) if isinstance(axis, int) else axis
    expand = _expander(x, statistics_axis)
    count = x.size // gamma.size
    mean = _float16_mean(x, statistics_axis)
    centered = x - mean[expand]
    var = (_float16_sum(centered * centered, statistics_axis).astype(numpy.float64)
           / count).astype(f16)
    inv_std = numpy.reciprocal(numpy.sqrt(var + f16(EPS)))
    x_hat = (x - mean[expand]) * inv_std[expand]
    numpy.testing.assert_array_equal(y.array, x_hat * gamma[expand] + beta[expand])
    if running:
        expected_running_mean += f16(1 - decay) * mean
        expected_running_var += f16((1 - decay) * (count / (count - 1))) * var
        numpy.testing.assert_array_equal(running_mean, expected_running_mean)
        numpy.testing.assert_array_equal(running_var, expected_running_var)

    y.grad = gy
    y.backward(enable_double_backprop=double)
    g_beta = _float16_sum(gy, statistics_axis)
    g_gamma = _float16_sum(gy * x_hat, statistics_axis)
    projection = (x_hat * g_gamma[expand] + g_beta[expand]) * f16(1.0 / count)
    gx = (gamma * inv_std)[expand] * (gy - projection)
    numpy.testing.assert_array_equal(variables[0].grad, gx)
    numpy.testing.assert_array_equal(variables[1].grad, g_gamma)
    numpy.testing.assert_array_equal(variables[2].grad, g_beta)


@pytest.mark.parametrize("shape, update", [((8, 3, 2, 2), True), ((10, 3), False),
                                           ((4, 3, 5), True)])
def test_float16_renormalization_takes_statistics_from_float16_sums(shape, update):
    rng = numpy.random.RandomState(5)
    f16 = numpy.float16
    gamma_shape = shape[1:2]
    x = (rng.standard_normal(shape) * 2 + 1).astype(f16)
    gamma = rng.uniform(0.5, 1.5, gamma_shape).astype(f16)
    beta = rng.uniform(-1, 1, gamma_shape).astype(f16)
    gy = rng.standard_normal(shape).astype(f16)
    running_mean = rng.uniform(0, 2, gamma_shape).astype(f16)
    running_var = rng.uniform(0.5, 2, gamma_shape).astype(f16)
    given_mean, given_var = running_mean.copy(), running_var.copy()
    rmax, dmax, decay = 1.5, 0.5, 0.9
    variables = [chainer.Variable(a) for a in (x, gamma, beta)]
    y = F.batch_renormalization(*variables, rmax, dmax, eps=EPS, running_mean=running_mean,
                                running_var=running_var, decay=decay,
                                update_statistics=update)

    axis = (0,) + tuple(range(2, len(shape)))
    expand = _expander(x, axis)
    count = x.size // gamma.size
    mean = _float16_mean(x, axis)
    centered = x - mean[expand]
    var = (_float16_sum(centered * centered, axis).astype(numpy.float64) / count).astype(f16)
    std = numpy.sqrt(var + f16(EPS))
    sigma_running = numpy.sqrt(given_var + f16(EPS))
    r = numpy.clip(std / sigma_running, 1 / rmax, rmax)
    d = numpy.clip((mean - given_mean) / sigma_running, -dmax, dmax)
    x_hat = (x - mean[expand]) / std[expand]
    renormalized = x_hat * r[expand] + d[expand]
    numpy.testing.assert_array_equal(y.array, gamma[expand] * renormalized + beta[expand])
    if update:
        numpy.testing.assert_array_equal(
            running_mean, given_mean * f16(decay) + mean * f16(1 - decay))
        numpy.testing.assert_array_equal(
            running_var,
            given_var * f16(decay) + var * f16((1 - decay) * count / (count - 1)))
    else:
        numpy.testing.assert_array_equal(running_mean, given_mean)

    y.grad = gy
    y.backward()
    g_beta = _float16_sum(gy, axis)
    g_gamma = _float16_sum(gy * renormalized, axis)
    g_std = _float16_sum(gy * x_hat, axis)
    scale = (r * gamma / std)[expand]
    gx = scale * (gy - (x_hat * g_std[expand] + g_beta[expand]) / f16(count))
    numpy.testing.assert_array_equal(variables[0].grad, gx)
    numpy.testing.assert_array_equal(variables[1].grad, g_gamma)
    numpy.testing.assert_array_equal(variables[2].grad, g_beta)
