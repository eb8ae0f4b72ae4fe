"""DepthwiseConvolution2D: parameter shapes (W and b both lazy), the default initializer's
scale, and agreement with the function."""

from __future__ import annotations

import numpy

from chainer_compat.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from chainer_compat.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D


def test_eager_parameters_and_forward():
    layer = DepthwiseConvolution2D(3, 2, (2, 3), stride=2, pad=1, initial_bias=0.25)
    assert layer.W.shape == (2, 3, 2, 3)
    numpy.testing.assert_array_equal(layer.b.array, numpy.full(6, 0.25, numpy.float32))
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 5, 6)).astype(numpy.float32)
    y = layer(x)
    expected = depthwise_convolution_2d(x, layer.W.array, layer.b.array, 2, 1).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_lazy_initialization_of_both_parameters():
    layer = DepthwiseConvolution2D(None, 4, 3)
    assert layer.W.array is None and layer.b.array is None
    y = layer(numpy.ones((1, 2, 5, 5), numpy.float32))
    assert layer.W.shape == (4, 2, 3, 3)
    assert layer.b.shape == (8,)
    assert y.shape == (1, 8, 3, 3)
    assert DepthwiseConvolution2D(2, 1, 3, nobias=True).b is None


def test_default_initializer_is_he_normal_over_root_two():
    layer = DepthwiseConvolution2D(64, 4, 5)
    # HeNormal(1 / sqrt(2)): std = sqrt(2 / fan_in) / sqrt(2) = 1 / sqrt(64 * 25).
    assert abs(float(layer.W.array.std()) * 40 - 1) < 0.1
