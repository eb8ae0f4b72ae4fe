"""DilatedConvolution2D: parameter shapes, lazy initialization and the two-size form, and
agreement with the function."""

from __future__ import annotations

import numpy

from chainer_compat.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from chainer_compat.links.connection.dilated_convolution_2d import DilatedConvolution2D


def test_eager_parameters_and_forward():
    layer = DilatedConvolution2D(2, 3, (2, 3), stride=1, pad=2, dilate=(2, 1))
    assert layer.W.shape == (3, 2, 2, 3)
    assert layer.stride == (1, 1) and layer.pad == (2, 2) and layer.dilate == (2, 1)
    x = numpy.random.RandomState(0).uniform(-1, 1, (1, 2, 6, 5)).astype(numpy.float32)
    y = layer(x)
    expected = dilated_convolution_2d(x, layer.W.array, layer.b.array, 1, 2, (2, 1)).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_lazy_initialization_and_nobias():
    layer = DilatedConvolution2D(4, 3, dilate=2, nobias=True)
    assert layer.W.array is None
    assert layer.b is None
    y = layer(numpy.ones((1, 2, 7, 7), numpy.float32))
    assert layer.W.shape == (4, 2, 3, 3)
    assert y.shape == (1, 4, 3, 3)
