"""The two contraction layouts of the (de)convolutions (NOTE [Chainer's convolution layouts]):
Chainer's, taken for small products and single samples, and the faster channel-major one taken
above the limit, compute the same function."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import functions as F
from chainer_compat.functions.connection import convolution_2d as convolution_2d_module


def _forward_backward(function, *arrays):
    variables = [chainer_compat.Variable(a) for a in arrays]
    y = function(*variables)
    y.grad = numpy.random.RandomState(1).standard_normal(y.shape).astype(y.dtype)
    y.backward()
    return [y.array] + [v.grad for v in variables]


_CASES = [
    (lambda x, w: F.convolution_2d(x, w, stride=2, pad=1), (3, 4, 9, 8), (5, 4, 3, 3)),
    (lambda x, w: F.dilated_convolution_2d(x, w, pad=2, dilate=2), (2, 3, 9, 9), (4, 3, 3, 3)),
    (lambda x, w: F.convolution_nd(x, w, pad=1), (2, 3, 4, 5, 4), (4, 3, 3, 3, 3)),
]


@pytest.mark.parametrize("function, x_shape, w_shape", _CASES)
def test_channel_major_layout_computes_what_chainers_layout_does(
        monkeypatch, function, x_shape, w_shape):
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal(x_shape).astype(numpy.float32)
    w = rng.standard_normal(w_shape).astype(numpy.float32)
    chainers = _forward_backward(function, x, w)
    monkeypatch.setattr(convolution_2d_module, "_CHAINER_LAYOUT_LIMIT", 0)
    channel_major = _forward_backward(function, x, w)
    for expected, actual in zip(chainers, channel_major):
        numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_small_products_take_chainers_layout():
    take = convolution_2d_module._uses_chainer_layout
    limit = convolution_2d_module._CHAINER_LAYOUT_LIMIT
    assert take(numpy, 1, 100, 27, 8)
    assert not take(numpy, 1, limit, 27, 8)  # one sample or many: the faster path above it
    assert not take(numpy, 2, 100, 27, 8)  # Chainer's grouped path is ours already


def test_chainer_layout_keeps_the_channels_last_in_memory():
    # As Chainer's output does, which decides how later reductions over it are ordered.
    x = numpy.ones((2, 3, 5, 5), numpy.float32)
    w = numpy.ones((4, 3, 3, 3), numpy.float32)
    y = F.convolution_2d(x, w, pad=1).array
    assert y.strides[1] == y.itemsize
