"""Chainer-visible precision of average pooling on float16 input: each window's mean is the
exact mean rounded once to float16 (Chainer sums and divides in float32). Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _window_means(x, ksize, stride, pad):
    """Exact float64 means of zero-padded windows of a ``(n, c, h, w)`` array."""
    padded = numpy.pad(x.astype(numpy.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out_h = (padded.shape[2] - ksize) // stride + 1
    out_w = (padded.shape[3] - ksize) // stride + 1
    means = numpy.empty(x.shape[:2] + (out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            window = padded[:, :, i * stride:i * stride + ksize, j * stride:j * stride + ksize]
            means[:, :, i, j] = window.mean(axis=(2, 3))
    return means


@pytest.mark.parametrize("pooling", ["average_pooling_2d", "average_pooling_nd"])
def test_float16_average_pooling_rounds_the_exact_window_mean_once(pooling):
    x = numpy.random.RandomState(0).uniform(-1, 1, (4, 3, 9, 8)).astype(numpy.float16)
    y = getattr(F, pooling)(x, 3, 2, 1).array
    assert y.dtype == numpy.float16
    exact = _window_means(x, 3, 2, 1)
    # Half a unit in the last place of the rounded mean, and a little slack for float32 sums.
    bound = 0.5 * numpy.spacing(numpy.abs(exact.astype(numpy.float16))).astype(numpy.float64)
    assert numpy.all(numpy.abs(y.astype(numpy.float64) - exact) <= bound * 1.01 + 1e-7)


def test_float16_average_pooling_2d_and_nd_have_the_same_gradient():
    rs = numpy.random.RandomState(1)
    x = rs.uniform(-1, 1, (4, 3, 9, 8)).astype(numpy.float16)
    gy = rs.uniform(-1, 1, (4, 3, 5, 4)).astype(numpy.float16)
    grads = []
    for pooling in (F.average_pooling_2d, F.average_pooling_nd):
        variable = chainer.Variable(x)
        y = pooling(variable, 3, 2, 1)
        y.grad = gy
        y.backward()
        grads.append(variable.grad)
    assert grads[0].dtype == grads[1].dtype == numpy.float16
    numpy.testing.assert_array_equal(grads[0], grads[1])
