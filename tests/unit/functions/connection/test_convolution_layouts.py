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
    assert take(numpy, 1, 100, 27, 8, 2)
    assert not take(numpy, 1, limit, 27, 8, 1)  # one sample or many: the faster path above it
    assert not take(numpy, 1, limit, 27, 8, 4)
    assert not take(numpy, 2, 100, 27, 8, 2)  # Chainer's grouped path is ours already
    # one output channel: Chainer's layout at any size, except for a single sample
    assert take(numpy, 1, limit, 27, 1, 2)
    assert not take(numpy, 1, limit, 27, 1, 1)


def test_chainer_layout_keeps_the_channels_last_in_memory():
    # As Chainer's output does, which decides how later reductions over it are ordered.
    x = numpy.ones((2, 3, 5, 5), numpy.float32)
    w = numpy.ones((4, 3, 3, 3), numpy.float32)
    y = F.convolution_2d(x, w, pad=1).array
    assert y.strides[1] == y.itemsize


@pytest.mark.parametrize("function, x_shape, w_shape, groups", [
    (lambda x, w: F.convolution_2d(x, w, pad=1), (8, 3, 28, 28), (16, 3, 3, 3), 1),
    (lambda x, w: F.convolution_2d(x, w, pad=1), (1, 4, 64, 64), (16, 4, 3, 3), 1),
    (lambda x, w: F.convolution_nd(x, w, pad=1), (4, 3, 12, 12, 12), (16, 3, 3, 3, 3), 1),
    (lambda x, w: F.convolution_2d(x, w, pad=1, groups=2), (8, 4, 28, 28), (16, 2, 3, 3), 2),
])
def test_large_products_also_return_chainers_channels_last_layout(
        monkeypatch, function, x_shape, w_shape, groups):
    # Above the limit the product comes out in the layout Chainer's CPU convolution returns (a
    # view of an (n, *spatial, c) array; grouped convolutions excepted, whose output Chainer
    # lays out as ours), so that a reduction over it, such as batch normalization's
    # statistics, adds in Chainer's order.
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal(x_shape).astype(numpy.float32)
    w = rng.standard_normal(w_shape).astype(numpy.float32)
    n, c = x_shape[0], w_shape[0]
    rows = n * numpy.prod(x_shape[2:])  # pad 1 keeps the spatial size
    assert rows * numpy.prod(w_shape[1:]) * c > convolution_2d_module._CHAINER_LAYOUT_LIMIT
    y = function(x, w).array
    channels_last = numpy.moveaxis(numpy.empty((n,) + x_shape[2:] + (c,), numpy.float32), -1, 1)
    if groups == 1:
        assert y.strides == channels_last.strides
        axes = (0,) + tuple(range(2, y.ndim))
        expected = numpy.moveaxis(numpy.ascontiguousarray(numpy.moveaxis(y, 1, -1)), -1, 1)
        assert y.sum(axis=axes).tobytes() == expected.sum(axis=axes).tobytes()
        # The same bits as Chainer's contraction (taken below the limit) for these shapes.
        monkeypatch.setattr(convolution_2d_module, "_CHAINER_LAYOUT_LIMIT", 2 ** 62)
        assert function(x, w).array.tobytes() == y.tobytes()
    else:
        assert y.strides != channels_last.strides
