"""dilated_convolution_2d: the taps spaced ``dilate`` apart, against a loop reference, with
first and second order gradients and its argument order."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.dilated_convolution_2d import dilated_convolution_2d


def reference(x, w, b, stride, pad, dilate):
    (sy, sx), (ph, pw), (dy, dx) = stride, pad, dilate
    padded = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = w.shape[2:]
    out_h = (padded.shape[2] - (kh - 1) * dy - 1) // sy + 1
    out_w = (padded.shape[3] - (kw - 1) * dx - 1) // sx + 1
    y = numpy.zeros((x.shape[0], w.shape[0], out_h, out_w))
    for i, j, p, q in itertools.product(range(out_h), range(out_w), range(kh), range(kw)):
        y[:, :, i, j] += padded[:, :, i * sy + p * dy, j * sx + q * dx] @ w[:, :, p, q].T
    return y + b.reshape(1, -1, 1, 1)


@pytest.mark.parametrize("stride,pad,dilate", [
    ((1, 1), (0, 0), (2, 2)),
    ((2, 1), (1, 2), (1, 3)),
])
def test_forward_and_gradients(stride, pad, dilate):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 2, 7, 6))
    w = rng.uniform(-1, 1, (3, 2, 2, 2))
    b = rng.uniform(-1, 1, 3)
    y = dilated_convolution_2d(x, w, b, stride, pad, dilate)
    numpy.testing.assert_allclose(y.array, reference(x, w, b, stride, pad, dilate), atol=1e-12)

    def f(x, w, b):
        return dilated_convolution_2d(x, w, b, stride, pad, dilate)

    gy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(f, (x, w, b), gy, atol=1e-6, rtol=1e-5)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in (x, w, b))
    gradient_check.check_double_backward(f, (x, w, b), gy, grad_grads, atol=1e-6, rtol=1e-5)


def test_dilate_comes_before_cover_all():
    x = numpy.ones((1, 1, 8, 8))
    w = numpy.ones((1, 1, 2, 2))
    assert dilated_convolution_2d(x, w, None, 2, 0, 2).shape == (1, 1, 3, 3)
    assert dilated_convolution_2d(x, w, None, 2, 0, 2, True).shape == (1, 1, 4, 4)
    with pytest.raises(ValueError):
        dilated_convolution_2d(x, w, dilate=0)
