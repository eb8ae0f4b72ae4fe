"""The (de)convolutions round as Chainer's CPU code does on small problems, to the last bit:
tensordot of a C-ordered im2col array with W, col2im of tensordot(W, x) for the transposed
convolution, and tensordot(gy, im2col) for the weight gradient. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import itertools
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _im2col(x, ksize, stride, pad, dilate):
    """``(n, c, *ksize, *outs)``: each window of the zero-padded x, gathered into a new array."""
    spatial = x.shape[2:]
    outs = [(size + 2 * p - (k - 1) * d - 1) // s + 1
            for size, k, s, p, d in zip(spatial, ksize, stride, pad, dilate)]
    widths = [(0, 0), (0, 0)] + [(p, p + s - 1) for p, s in zip(pad, stride)]
    padded = numpy.pad(x, widths)
    col = numpy.empty(x.shape[:2] + tuple(ksize) + tuple(outs), x.dtype)
    for offset in itertools.product(*(range(k) for k in ksize)):
        window = tuple(slice(i * d, i * d + s * o, s)
                       for i, d, s, o in zip(offset, dilate, stride, outs))
        col[(slice(None), slice(None)) + offset] = padded[(slice(None), slice(None)) + window]
    return col


def _col2im(col, stride, pad, dilate, spatial):
    """Adds each window of col back at its place, one kernel offset at a time, then crops."""
    ndim = len(spatial)
    ksize, outs = col.shape[2:2 + ndim], col.shape[2 + ndim:]
    canvas = numpy.zeros(col.shape[:2] + tuple(
        max(size + 2 * p, (o - 1) * s + (k - 1) * d + 1)
        for size, p, o, s, k, d in zip(spatial, pad, outs, stride, ksize, dilate)), col.dtype)
    for offset in itertools.product(*(range(k) for k in ksize)):
        window = tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                       for i, d, s, o in zip(offset, dilate, stride, outs))
        canvas[(slice(None), slice(None)) + window] += col[(slice(None), slice(None)) + offset]
    return canvas[(slice(None), slice(None)) + tuple(
        slice(p, p + size) for p, size in zip(pad, spatial))]


def _convolve(x, w, stride, pad, dilate):
    col = _im2col(x, w.shape[2:], stride, pad, dilate)
    axes = tuple(range(1, x.ndim))
    return numpy.moveaxis(numpy.tensordot(col, w, (axes, axes)).astype(x.dtype), -1, 1)


def _deconvolve(x, w, stride, pad, dilate, spatial):
    col = numpy.moveaxis(numpy.tensordot(w, x, (0, 1)).astype(x.dtype), x.ndim - 1, 0)
    return _col2im(col, stride, pad, dilate, spatial)


def _weight_grad(x, gy, ksize, stride, pad, dilate):
    col = _im2col(x, ksize, stride, pad, dilate)
    ndim = len(ksize)
    spatial = tuple(range(2, ndim + 2))
    return numpy.tensordot(gy, col, ((0, *spatial), (0, *range(ndim + 2, 2 * ndim + 2))))


def _arrays(dtype, *shapes, seed=0):
    rng = numpy.random.RandomState(seed)
    return [(rng.standard_normal(shape) * 2).astype(dtype) for shape in shapes]


def _run(function, x, w, b, gy_seed=1):
    variables = [chainer.Variable(a) for a in (x, w, b)]
    y = function(*variables)
    gy = numpy.random.RandomState(gy_seed).standard_normal(y.shape).astype(x.dtype)
    y.grad = gy
    y.backward()
    return y.array, gy, [v.grad for v in variables]


_CONVOLUTIONS = [
    # (x shape, W shape, stride, pad, dilate)
    ((4, 3, 9, 9), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1)),
    ((1, 3, 9, 9), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1)),
    ((3, 4, 10, 9), (6, 4, 3, 2), (2, 1), (1, 0), (1, 1)),
    ((2, 3, 9, 9), (4, 3, 3, 3), (1, 1), (2, 2), (2, 2)),
]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("x_shape, w_shape, stride, pad, dilate", _CONVOLUTIONS)
def test_convolution_2d_rounds_as_chainer(dtype, x_shape, w_shape, stride, pad, dilate):
    x, w, b = _arrays(dtype, x_shape, w_shape, w_shape[:1])
    y, gy, (gx, gw, gb) = _run(
        lambda x, w, b: F.convolution_2d(x, w, b, stride=stride, pad=pad, dilate=dilate),
        x, w, b)
    expected = _convolve(x, w, stride, pad, dilate) + b[:, None, None]
    numpy.testing.assert_array_equal(y, expected)
    numpy.testing.assert_array_equal(gx, _deconvolve(gy, w, stride, pad, dilate, x.shape[2:]))
    numpy.testing.assert_array_equal(
        gw, _weight_grad(x, gy, w.shape[2:], stride, pad, dilate).astype(dtype))
    numpy.testing.assert_array_equal(gb, gy.sum(axis=(0, 2, 3)))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_dilated_convolution_2d_rounds_as_chainer(dtype):
    x, w = _arrays(dtype, (2, 3, 9, 9), (4, 3, 3, 3))
    variables = [chainer.Variable(x), chainer.Variable(w)]
    y = F.dilated_convolution_2d(*variables, pad=2, dilate=2)
    gy = _arrays(dtype, y.shape, seed=1)[0]
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(y.array, _convolve(x, w, (1, 1), (2, 2), (2, 2)))
    numpy.testing.assert_array_equal(
        variables[1].grad, _weight_grad(x, gy, (3, 3), (1, 1), (2, 2), (2, 2)))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("batch", [1, 4])
def test_deconvolution_2d_rounds_as_chainer(dtype, batch):
    x, w, b = _arrays(dtype, (batch, 3, 5, 5), (3, 5, 3, 3), (5,))
    stride, pad, dilate = (2, 2), (1, 1), (1, 1)
    y, gy, (gx, gw, gb) = _run(
        lambda x, w, b: F.deconvolution_2d(x, w, b, stride=stride, pad=pad), x, w, b)
    out_size = y.shape[2:]
    expected = _deconvolve(x, w, stride, pad, dilate, out_size) + b[:, None, None]
    numpy.testing.assert_array_equal(y, expected)
    numpy.testing.assert_array_equal(gx, _convolve(gy, w, stride, pad, dilate))
    # The weight gradient of a deconvolution is that of the convolution from gy to x.
    numpy.testing.assert_array_equal(gw, _weight_grad(gy, x, (3, 3), stride, pad, dilate))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("batch", [1, 2])
def test_convolution_nd_rounds_as_chainer(dtype, batch):
    x, w, b = _arrays(dtype, (batch, 3, 5, 4, 5), (4, 3, 3, 3, 3), (4,))
    stride, pad, dilate = (1, 2, 1), (1, 1, 1), (1, 1, 1)
    y, gy, (gx, gw, gb) = _run(
        lambda x, w, b: F.convolution_nd(x, w, b, stride=stride, pad=pad), x, w, b)
    expected = _convolve(x, w, stride, pad, dilate) + b[:, None, None, None]
    numpy.testing.assert_array_equal(y, expected)
    numpy.testing.assert_array_equal(gx, _deconvolve(gy, w, stride, pad, dilate, x.shape[2:]))
    numpy.testing.assert_array_equal(gw, _weight_grad(x, gy, (3, 3, 3), stride, pad, dilate))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_deconvolution_nd_rounds_as_chainer(dtype):
    x, w, b = _arrays(dtype, (2, 3, 3, 4, 3), (3, 4, 3, 3, 3), (4,))
    stride, pad, dilate = (2, 2, 2), (1, 1, 1), (1, 1, 1)
    y, gy, (gx, gw, gb) = _run(
        lambda x, w, b: F.deconvolution_nd(x, w, b, stride=stride, pad=pad), x, w, b)
    expected = _deconvolve(x, w, stride, pad, dilate, y.shape[2:]) + b[:, None, None, None]
    numpy.testing.assert_array_equal(y, expected)
    numpy.testing.assert_array_equal(gx, _convolve(gy, w, stride, pad, dilate))
    numpy.testing.assert_array_equal(gw, _weight_grad(gy, x, (3, 3, 3), stride, pad, dilate))


def test_convolution_nd_adds_a_wider_bias_before_rounding():
    # A float16 x with a float32 bias: the sum is taken in float32 and rounded once.
    x, w = _arrays(numpy.float16, (2, 3, 4, 4, 4), (4, 3, 3, 3, 3))
    b = numpy.random.RandomState(3).standard_normal(4).astype(numpy.float32) * 3
    bias = chainer.Variable(b)
    y = F.convolution_nd(x, w, bias, pad=1)
    expected = _convolve(x, w, (1, 1, 1), (1, 1, 1), (1, 1, 1))
    expected = (expected + b[:, None, None, None]).astype(numpy.float16)
    assert y.dtype == numpy.float16
    numpy.testing.assert_array_equal(y.array, expected)
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert bias.grad.dtype == numpy.float32


def test_deconvolution_nd_adds_a_wider_bias_before_rounding():
    x, w = _arrays(numpy.float16, (2, 3, 3, 3, 3), (3, 4, 2, 2, 2))
    b = numpy.random.RandomState(3).standard_normal(4).astype(numpy.float32) * 3
    bias = chainer.Variable(b)
    y = F.deconvolution_nd(x, w, bias, stride=2)
    expected = _deconvolve(x, w, (2, 2, 2), (0, 0, 0), (1, 1, 1), y.shape[2:])
    expected = (expected + b[:, None, None, None]).astype(numpy.float16)
    numpy.testing.assert_array_equal(y.array, expected)
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert bias.grad.dtype == numpy.float32
