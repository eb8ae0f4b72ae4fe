"""Smaller functions that round as Chainer's CPU code does: an integer-scale unpooling's
gradient sums each window as the last two axes of a reshaped view, gaussian's gradient with
respect to ln_var forms the noise term first, a float16 mean squared error sums in float32
and divides in float64, fixed batch normalization's gamma gradient sums a new product, and a
local convolution computes one window at a time; softplus' gradient and depth2space's output
take the memory layout Chainer's give them, which orders later sums, and matmul's transposed
product swaps its operands. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def test_integer_scale_unpooling_gradient_sums_each_tile_as_its_own_axes():
    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.standard_normal((2, 3, 4, 4)).astype(numpy.float32))
    y = F.unpooling_2d(x, 2, outsize=(8, 8))
    gy = rng.standard_normal(y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    tiles = numpy.rollaxis(gy.reshape(2, 3, 4, 2, 4, 2), 3, 5)
    numpy.testing.assert_array_equal(x.grad, tiles.sum(axis=(4, 5)))


def test_gaussian_gradient_of_ln_var_forms_the_noise_first():
    rng = numpy.random.RandomState(1)
    mean = chainer.Variable(rng.standard_normal((5, 40)).astype(numpy.float32))
    ln_var = chainer.Variable(rng.standard_normal((5, 40)).astype(numpy.float32))
    z, eps = F.gaussian(mean, ln_var, return_eps=True)
    gy = rng.standard_normal(z.shape).astype(numpy.float32)
    z.grad = gy
    z.backward()
    noise = numpy.exp(ln_var.array * numpy.float32(0.5)) * eps
    numpy.testing.assert_array_equal(ln_var.grad, gy * noise * numpy.float32(0.5))
    numpy.testing.assert_array_equal(mean.grad, gy)


def test_det_reads_a_square_matrix_from_the_first_two_axes():
    # Glow's invertible 1x1 convolution takes the determinant of its (n, n, 1, 1) weight.
    q, _ = numpy.linalg.qr(numpy.random.RandomState(2).standard_normal((3, 3)))
    weight = chainer.Variable(q.astype(numpy.float32).reshape(3, 3, 1, 1))
    d = F.det(weight)
    d.backward()
    numpy.testing.assert_allclose(abs(d.array), 1.0, rtol=1e-5)
    assert weight.grad.shape == (3, 3, 1, 1)
    numpy.testing.assert_allclose(weight.grad[:, :, 0, 0],
                                  d.array * numpy.linalg.inv(q).T, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 4, 5), (16, 10), (7,)])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_mean_squared_error_rounds_the_sum_once_and_divides_in_float64(shape, dtype):
    rng = numpy.random.RandomState(3)
    x0 = (rng.standard_normal(shape) * 2).astype(dtype)
    x1 = (rng.standard_normal(shape) * 2).astype(dtype)
    diff = (x0 - x1).ravel()
    if dtype == numpy.float16:
        # NumPy's float16 dot: one float32 running sum, in order, rounded at the end.
        running = numpy.float32(0)
        for value in diff.astype(numpy.float32):
            running = numpy.float32(running + value * value)
        total = numpy.float16(running)
    else:
        total = diff.dot(diff)
    expected = numpy.array(numpy.float64(total) / diff.size, dtype)
    numpy.testing.assert_array_equal(F.mean_squared_error(x0, x1).array, expected)


def test_fixed_batch_normalization_gamma_gradient_sums_a_new_product():
    # x channels-last in memory, as a convolution returns it: the product x_hat * gy gets
    # the memory order NumPy picks from both operands, and its sum follows that order.
    rng = numpy.random.RandomState(4)
    x = rng.standard_normal((4, 6, 6, 8)).astype(numpy.float32).transpose(0, 3, 1, 2)
    gamma, beta = (rng.standard_normal(8).astype(numpy.float32) for _ in range(2))
    mean = rng.standard_normal(8).astype(numpy.float32)
    var = rng.uniform(0.5, 2, 8).astype(numpy.float32)
    gy = rng.standard_normal(x.shape).astype(numpy.float32)
    gamma_var = chainer.Variable(gamma)
    y = F.fixed_batch_normalization(x, gamma_var, beta, mean, var)
    y.grad = gy
    y.backward()
    inv_std = numpy.sqrt(numpy.reciprocal(var + numpy.float32(2e-5)), dtype=numpy.float32)
    x_hat = x - mean[None, :, None, None]
    x_hat *= inv_std[None, :, None, None]
    numpy.testing.assert_array_equal(gamma_var.grad, (x_hat * gy).sum(axis=(0, 2, 3)))


@pytest.mark.parametrize("x_shape, w_shape, stride", [
    ((1, 64, 6, 6), (8, 4, 4, 64, 3, 3), 1),  # one sample: NumPy's dot takes another routine
    ((4, 16, 9, 9), (6, 4, 4, 16, 3, 3), 2),
    ((3, 8, 6, 6), (5, 4, 4, 8, 3, 3), 1),  # windows overlap: a pixel's terms arrive in order
])
def test_local_convolution_computes_one_window_at_a_time(x_shape, w_shape, stride):
    rng = numpy.random.RandomState(5)
    x = chainer.Variable(rng.standard_normal(x_shape).astype(numpy.float32))
    W = chainer.Variable(rng.standard_normal(w_shape).astype(numpy.float32))  # noqa: N806
    out_channels, out_h, out_w, _, kh, kw = w_shape
    gy = rng.standard_normal((x_shape[0], out_channels, out_h, out_w)).astype(numpy.float32)
    y = F.local_convolution_2d(x, W, stride=stride)
    y.grad = gy
    y.backward()
    expected_y = numpy.empty(gy.shape, numpy.float32)
    expected_gx = numpy.zeros(x_shape, numpy.float32)
    expected_gW = numpy.empty(w_shape, numpy.float32)  # noqa: N806
    for i in range(out_h):
        for j in range(out_w):
            rows, cols = slice(i * stride, i * stride + kh), slice(j * stride, j * stride + kw)
            window = x.array[:, :, rows, cols]
            expected_y[:, :, i, j] = window.reshape(x_shape[0], -1).dot(
                W.array[:, i, j].reshape(out_channels, -1).T)
            expected_gx[:, :, rows, cols] += numpy.tensordot(gy[:, :, i, j], W.array[:, i, j],
                                                             axes=((1,), (0,)))
            expected_gW[:, i, j] = numpy.tensordot(gy[:, :, i, j], window, axes=((0,), (0,)))
    numpy.testing.assert_array_equal(y.array, expected_y)
    numpy.testing.assert_array_equal(x.grad, expected_gx)
    numpy.testing.assert_array_equal(W.grad, expected_gW)


def _channels_last(rng, shape):
    """A float32 array of ``shape`` laid out channels-last in memory, as convolutions return."""
    n, c, h, w = shape
    return rng.standard_normal((n, h, w, c)).astype(numpy.float32).transpose(0, 3, 1, 2)


def test_softplus_gradient_is_a_new_product_laid_out_from_both_operands():
    rng = numpy.random.RandomState(6)
    x = chainer.Variable(_channels_last(rng, (2, 4, 5, 5)))
    gy = rng.standard_normal(x.shape).astype(numpy.float32)
    y = F.softplus(x)
    y.grad = gy
    y.backward()
    expected = (1 - 1 / (1 + numpy.exp(x.array))) * gy
    numpy.testing.assert_array_equal(x.grad, expected)
    # A later reduction (a convolution's bias gradient) adds in this memory order.
    assert x.grad.strides == expected.strides


@pytest.mark.parametrize("r", [2, 3])
def test_depth2space_returns_the_channels_last_view_of_its_cpu_route(r):
    rng = numpy.random.RandomState(7)
    x = rng.standard_normal((2, 2 * r * r, 3, 4)).astype(numpy.float32)
    y = F.depth2space(x, r).array
    n, c, h, w = 2, 2, 3, 4
    pixels = x.transpose(0, 2, 3, 1).reshape(n, h, w, r, r, c).transpose(0, 1, 3, 2, 4, 5)
    expected = pixels.reshape(n, h * r, w * r, c).transpose(0, 3, 1, 2)
    numpy.testing.assert_array_equal(y, expected)
    assert y.strides == expected.strides
    numpy.testing.assert_array_equal(y.sum(axis=(0, 2, 3)), expected.sum(axis=(0, 2, 3)))


def test_matmul_forms_a_transposed_product_from_swapped_operands():
    # transc (and the gradients that use it: b's with transb, a's with transa) computes
    # op(b)^T @ op(a)^T, another BLAS product than transposing op(a) @ op(b).
    rng = numpy.random.RandomState(8)
    a = chainer.Variable((rng.rand(64, 16) * 3).astype(numpy.float32))
    b = chainer.Variable((rng.rand(64, 16) * 3).astype(numpy.float32))
    y = F.matmul(a, b, transb=True)
    gy = (rng.rand(64, 64) - 0.5).astype(numpy.float32)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(b.grad, gy.T @ a.array)
    assert b.grad.flags.c_contiguous
