"""F.sum, F.mean, the (de)convolution bias gradients, batch and layer normalization, the
gradients of broadcast operands, a global average pooling and a softmax over many classes
(the softmax family, logsumexp and softmax_cross_entropy sum alike), over runs longer than 8,192
elements, round as NumPy 1.26 adds them: pairwise sums of 8,192-element chunks, added in turn.
Passing with CHAINER_CONFORMANCE_TARGET=chainer (NumPy 1.26) shows the reference below is
Chainer's order.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest
from numpy_sum_reference import CHUNK, numpy1_sum_of_runs

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")

def _data(shape, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    scale = 1.0 if dtype == numpy.float16 else 1000.0
    return (rng.standard_normal(shape) * scale + 0.3).astype(dtype)


def _assert_same_bits(actual, expected):
    actual = numpy.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    numpy.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_sum_over_batch_and_space(dtype):
    x = _data((3, 4, 100, 100), dtype)
    expected = numpy1_sum_of_runs(x.transpose(1, 0, 2, 3).reshape(4, 3, 10000))
    _assert_same_bits(F.sum(x, axis=(0, 2, 3)).array, expected)


@pytest.mark.parametrize("length", [8193, 16390, 3 * CHUNK + 5])
def test_sum_of_everything(length):
    x = _data((length,), numpy.float32, seed=length)
    _assert_same_bits(F.sum(x).array, numpy1_sum_of_runs(x.reshape(1, 1, -1)).reshape(()))


def test_sum_over_space_keepdims():
    x = _data((2, 3, 91, 91), numpy.float32)
    expected = numpy1_sum_of_runs(x.reshape(6, 1, -1)).reshape(2, 3, 1, 1)
    _assert_same_bits(F.sum(x, axis=(2, 3), keepdims=True).array, expected)


def _bias_grad(function, x, w, gy):
    b = chainer.Variable(numpy.zeros(w.shape[0] if function is not F.deconvolution_2d
                                     else w.shape[1], x.dtype))
    y = function(x, w, b)
    y.grad = gy
    y.backward()
    return b.grad


@pytest.mark.parametrize("function, x_shape, w_shape, gy_shape", [
    (F.convolution_2d, (2, 3, 96, 96), (4, 3, 1, 1), (2, 4, 96, 96)),
    (F.deconvolution_2d, (2, 3, 91, 91), (3, 4, 1, 1), (2, 4, 91, 91)),
    (F.convolution_nd, (1, 2, 24, 24, 24), (3, 2, 1, 1, 1), (1, 3, 24, 24, 24)),
], ids=["convolution_2d", "deconvolution_2d", "convolution_nd"])
def test_bias_gradient(function, x_shape, w_shape, gy_shape):
    x = _data(x_shape, numpy.float32)
    w = _data(w_shape, numpy.float32, seed=1) / 1000
    gy = _data(gy_shape, numpy.float32, seed=2)
    channels, samples = gy_shape[1], gy_shape[0]
    expected = numpy1_sum_of_runs(numpy.moveaxis(gy, 1, 0).reshape(channels, samples, -1))
    _assert_same_bits(_bias_grad(function, x, w, gy), expected)


def test_batch_normalization_statistics_and_parameter_gradients():
    # float32 statistics as numpy.mean and numpy.var take them (the sums chunked, each divided
    # by the count in float64 and rounded), and beta's and gamma's gradients as F.sum's.
    x = _data((2, 3, 91, 91), numpy.float32) / 1000
    gamma, beta = (chainer.Variable(numpy.full(3, value, numpy.float32)) for value in (1.5, 0.5))
    gy = _data(x.shape, numpy.float32, seed=3) / 1000
    running_mean, running_var = numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float32)
    y = F.batch_normalization(x, gamma, beta, running_mean=running_mean,
                              running_var=running_var, decay=0.0)
    y.grad = gy
    y.backward()

    def channel_sums(a):
        return numpy1_sum_of_runs(a.transpose(1, 0, 2, 3).reshape(3, 2, -1))

    count = x.size // 3
    mean = (channel_sums(x).astype(numpy.float64) / count).astype(numpy.float32)
    deviation = x - mean[None, :, None, None]
    var = (channel_sums(deviation * deviation).astype(numpy.float64) / count).astype(
        numpy.float32)
    _assert_same_bits(running_mean, mean)
    _assert_same_bits(running_var, numpy.float32(count / (count - 1)) * var)
    _assert_same_bits(beta.grad, channel_sums(gy))


def test_mean_over_space():
    x = _data((2, 3, 91, 91), numpy.float32)
    expected = (numpy1_sum_of_runs(x.reshape(6, 1, -1)).astype(numpy.float64) / (91 * 91)).astype(
        numpy.float32)
    _assert_same_bits(F.mean(x, axis=(2, 3)).array, expected.reshape(2, 3))


def test_gradient_of_a_broadcast_operand_sums_its_long_runs_in_turn():
    x = _data((2, 3, 91, 91), numpy.float32) / 1000
    b = chainer.Variable(numpy.ones((1, 3, 1, 1), numpy.float32))
    gy = _data(x.shape, numpy.float32, seed=4) / 1000
    y = F.broadcast_to(b, x.shape) * x
    y.grad = gy
    y.backward()
    runs = (gy * x).transpose(1, 0, 2, 3).reshape(3, 2, -1)
    expected = numpy1_sum_of_runs(runs).reshape(1, 3, 1, 1)
    _assert_same_bits(b.grad, expected)


def test_global_average_pooling_of_a_large_map():
    # Chainer averages its im2col copy, each window one run of 10,000 entries.
    x = _data((2, 3, 100, 100), numpy.float32)
    total = numpy1_sum_of_runs(x.reshape(6, 1, -1))
    expected = (total / numpy.float32(100 * 100)).reshape(2, 3, 1, 1)
    _assert_same_bits(F.average_pooling_2d(x, 100).array, expected)


def test_layer_normalization_over_many_features():
    # numpy.mean's steps over each row of 10,000 features: sum in NumPy 1's order, divided by
    # the count in float32.
    x = _data((3, 10000), numpy.float32) / 1000
    gamma, beta = numpy.ones(10000, numpy.float32), numpy.zeros(10000, numpy.float32)
    y = F.layer_normalization(x, gamma, beta).array

    def row_means(a):
        return (numpy1_sum_of_runs(a.reshape(3, 1, -1)) / numpy.float32(10000))[:, None]

    centered = x - row_means(x)
    inv_std = numpy.reciprocal(numpy.sqrt(row_means(numpy.square(centered))
                                          + numpy.float32(1e-5)))
    _assert_same_bits(y, centered * inv_std * gamma + beta)


def test_softmax_over_many_classes():
    # A language model's 10,000-word output: each row's exponentials summed in NumPy 1's order.
    x = _data((4, 10000), numpy.float32) / 1000
    y = F.softmax(x).array
    exponentials = numpy.exp(x - x.max(axis=1, keepdims=True))
    totals = numpy1_sum_of_runs(exponentials.reshape(4, 1, -1))[:, None]
    _assert_same_bits(y, exponentials / totals)


def test_mean_absolute_error_divides_its_long_sum_in_float64():
    rng = numpy.random.RandomState(3)  # a case where NumPy 2's sum divided in float32 differs
    x0, x1 = (rng.standard_normal((4, 3, 60, 60)).astype(numpy.float32) for _ in range(2))
    total = numpy1_sum_of_runs(numpy.abs(x0 - x1).reshape(1, 1, -1))[0]
    expected = numpy.asarray(numpy.float64(total) / x0.size, numpy.float32)
    _assert_same_bits(F.mean_absolute_error(x0, x1).array, expected)


def _by_channel_runs(a):
    """(N, C, H, W) -> the (C, N, H*W) runs NumPy 1 adds for a sum over (0, 2, 3)."""
    return numpy.ascontiguousarray(a).transpose(1, 0, 2, 3).reshape(a.shape[1], a.shape[0], -1)


def _map_and_gradient(seed):
    x = _data((2, 3, 96, 96), numpy.float32, seed=seed) / 1000
    gy = _data(x.shape, numpy.float32, seed=seed + 1) / 1000
    return x, gy


def _slope_gradient(function, seed, slope):
    """Applies ``function(x, p)`` with a per-channel parameter p; returns x, gy, y and p.grad."""
    x, gy = _map_and_gradient(seed)
    p = chainer.Variable(numpy.full(3, slope, numpy.float32))
    y = function(x, p)
    y.grad = gy
    y.backward()
    return x, gy, y.array, p.grad


def test_prelu_slope_gradient():
    x, gy, _, grad = _slope_gradient(F.prelu, 10, 0.25)
    masked = numpy.where(x >= 0, numpy.float32(0), x * gy)
    _assert_same_bits(grad, numpy1_sum_of_runs(_by_channel_runs(masked)))


def test_swish_beta_gradient():
    x, gy, out, grad = _slope_gradient(F.swish, 14, 1.5)
    _assert_same_bits(grad, numpy1_sum_of_runs(_by_channel_runs(gy * out * (x - out))))


def test_batch_l2_norm_squared_of_long_rows():
    x = _data((3, 4, 50, 50), numpy.float32, seed=14) / 1000
    rows = x.reshape(3, -1)
    expected = numpy1_sum_of_runs((rows * rows).reshape(3, 1, -1))
    _assert_same_bits(F.batch_l2_norm_squared(x).array, expected)


def test_normalize_of_long_rows():
    x = _data((2, 20000), numpy.float32, seed=16) / 1000
    squares = numpy1_sum_of_runs(numpy.square(x).reshape(2, 1, -1))
    norm = numpy.sqrt(squares)[:, None] + numpy.float32(1e-5)
    _assert_same_bits(F.normalize(x).array, x / norm)


@pytest.mark.parametrize("normalize", [
    lambda x, gamma, beta: F.batch_renormalization(
        x, gamma, beta, rmax=3.0, dmax=5.0, running_mean=numpy.zeros(3, numpy.float32),
        running_var=numpy.ones(3, numpy.float32)),
    lambda x, gamma, beta: F.group_normalization(x, 3, gamma, beta),
], ids=["batch_renormalization", "group_normalization"])
def test_normalization_beta_gradient(normalize):
    x, gy = _map_and_gradient(16)
    gamma = chainer.Variable(numpy.ones(3, numpy.float32))
    beta = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = normalize(x, gamma, beta)
    y.grad = gy
    y.backward()
    _assert_same_bits(beta.grad, numpy1_sum_of_runs(_by_channel_runs(gy)))


def test_decorrelated_batch_normalization_running_mean():
    x, _ = _map_and_gradient(20)
    running_mean = numpy.zeros((1, 3), numpy.float32)
    F.decorrelated_batch_normalization(x, groups=1, running_mean=running_mean, decay=0.9)
    # Each channel's batch and map are copied into one row of 18,432 (a single run), whose
    # NumPy 1 sum is divided by the count.
    total = numpy1_sum_of_runs(_by_channel_runs(x).reshape(3, 1, -1))
    mean = (total.astype(numpy.float64) / (2 * 96 * 96)).astype(numpy.float32)
    _assert_same_bits(running_mean, ((1 - 0.9) * mean)[None])
