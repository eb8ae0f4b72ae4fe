"""depthwise_convolution_2d: each channel with its own filters, outputs grouped by input
channel, against per-channel references; first and second order gradients."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from chainer_compat.utils import type_check


def reference(x, w, b, stride, pad):
    """Channel c, filter m -> output channel c * multiplier + m, by definition."""
    multiplier, channels, kh, kw = w.shape
    padded = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out_h = (padded.shape[2] - kh) // stride + 1
    out_w = (padded.shape[3] - kw) // stride + 1
    y = numpy.zeros((x.shape[0], channels * multiplier, out_h, out_w))
    for c, m, i, j in itertools.product(range(channels), range(multiplier), range(out_h),
                                        range(out_w)):
        window = padded[:, c, i * stride:i * stride + kh, j * stride:j * stride + kw]
        y[:, c * multiplier + m, i, j] = (window * w[m, c]).sum(axis=(1, 2))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@pytest.mark.parametrize("stride,pad", [(1, 0), (2, 1)])
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_and_gradients(stride, pad, nobias):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 5, 4))
    w = rng.uniform(-1, 1, (2, 3, 2, 2))
    b = None if nobias else rng.uniform(-1, 1, 6)
    y = depthwise_convolution_2d(x, w, b, stride, pad)
    numpy.testing.assert_allclose(y.array, reference(x, w, b, stride, pad), atol=1e-12)
    inputs = (x, w) if nobias else (x, w, b)

    def f(*args):
        return depthwise_convolution_2d(*args[:2], *args[2:], stride=stride, pad=pad)

    gy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(f, inputs, gy, atol=1e-6, rtol=1e-5)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(f, inputs, gy, grad_grads, atol=1e-6, rtol=1e-5)


def test_mismatched_channels():
    with pytest.raises(type_check.InvalidType):
        depthwise_convolution_2d(numpy.ones((1, 2, 3, 3)), numpy.ones((1, 3, 2, 2)))
