"""Tests for chainer_compat.links.connection.mlp_convolution_2d: layer layout, the activation
between layers only, initializers, lazy input channels, gradients and errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.connection.mlp_convolution_2d import MLPConvolution2D


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(14)


def test_layers_are_convolutions_with_one_by_one_after_the_first():
    link = MLPConvolution2D(2, (3, 4), (3, 2), stride=2, pad=1)
    assert len(link) == 2 and all(isinstance(layer, Convolution2D) for layer in link)
    assert link[0].W.shape == (3, 2, 3, 2)
    assert (link[0].stride, link[0].pad) == ((2, 2), (1, 1))
    assert link[1].W.shape == (4, 3, 1, 1) and link[1].stride == (1, 1)


def test_activation_is_applied_between_layers_only():
    calls = []

    def activation(h):
        calls.append(h.shape)
        return h * 2

    link = MLPConvolution2D(2, (3, 4, 5), 1, activation=activation)
    x = numpy.random.uniform(-1, 1, (1, 2, 3, 3)).astype(numpy.float32)
    y = link(x)
    assert calls == [(1, 3, 3, 3), (1, 4, 3, 3)]
    h = convolution_2d(x, link[0].W, link[0].b) * 2
    h = convolution_2d(h, link[1].W, link[1].b) * 2
    expected = convolution_2d(h, link[2].W, link[2].b)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)


def test_gradients_reach_every_layer():
    link = MLPConvolution2D(2, (3, 2), 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    x = numpy.random.uniform(-1, 1, (2, 2, 3, 3))
    gy = numpy.random.uniform(-1, 1, (2, 2, 2, 2))
    gradient_check.check_backward(link, x, gy, params=tuple(link.params()),
                                  dtype=numpy.float64, atol=1e-5, rtol=1e-4)


def test_errors_say_what_to_use():
    with pytest.raises(TypeError, match="Use conv_init and bias_init"):
        MLPConvolution2D(2, (3,), 1, 1, 0, None, 1.0)
    with pytest.raises(ValueError, match="Use conv_init and bias_init"):
        MLPConvolution2D(2, (3,), 1, wscale=2.0)
    with pytest.raises(ValueError, match="out_channels must hold at least one"):
        MLPConvolution2D(2, [], 1)
    with pytest.raises(TypeError):
        MLPConvolution2D(2, (3,), 1, nobias=True)
