"""ConvolutionND / Convolution1D / Convolution3D: parameter shapes, lazy initialization, the
two-size form, from_params, agreement with the function, gradients reaching W and b."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import initializers
from chainer_compat.functions.connection.convolution_nd import convolution_nd
from chainer_compat.links.connection.convolution_nd import (
    Convolution1D,
    Convolution3D,
    ConvolutionND,
)


def test_eager_parameters_and_forward():
    layer = ConvolutionND(2, 4, 6, (3, 2), stride=2, pad=1, groups=2,
                          initial_bias=initializers.Constant(0.5))
    assert layer.W.shape == (6, 2, 3, 2)
    assert layer.ksize == (3, 2)
    assert layer.dilate == (1, 1)
    numpy.testing.assert_array_equal(layer.b.array, numpy.full(6, 0.5, numpy.float32))
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 4, 5, 6)).astype(numpy.float32)
    y = layer(x)
    expected = convolution_nd(x, layer.W.array, layer.b.array, 2, 1, groups=2).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    layer.cleargrads()
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert layer.W.grad.shape == layer.W.shape
    numpy.testing.assert_allclose(layer.b.grad, numpy.full(6, y.array[0, 0].size * 2))


def test_lazy_initialization_and_two_size_form():
    layer = ConvolutionND(3, 5, 2)
    assert layer.W.array is None
    assert layer.out_channels == 5
    assert layer.ksize == (2, 2, 2)
    y = layer(numpy.ones((1, 3, 4, 4, 4), numpy.float32))
    assert layer.W.shape == (5, 3, 2, 2, 2)
    assert y.shape == (1, 5, 3, 3, 3)


def test_named_forms_and_cover_all():
    one = Convolution1D(2, 3, 3, stride=2, cover_all=True, nobias=True)
    assert one.b is None
    assert one.W.shape == (3, 2, 3)
    assert one(numpy.ones((1, 2, 6), numpy.float32)).shape == (1, 3, 3)
    three = Convolution3D(None, 4, (1, 2, 3), dilate=(1, 1, 2))
    assert three(numpy.ones((2, 1, 3, 3, 6), numpy.float32)).shape == (2, 4, 3, 2, 2)
    assert three.W.shape == (4, 1, 1, 2, 3)


def test_from_params_copies_arrays():
    rng = numpy.random.RandomState(1)
    w = rng.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    layer = ConvolutionND.from_params(w, stride=2, nobias=True, cover_all=True)
    assert layer.b is None
    numpy.testing.assert_array_equal(layer.W.array, w)
    assert layer.W.array is not w
    assert layer.cover_all is True
    with pytest.raises(ValueError, match="out_channels"):
        ConvolutionND.from_params(w, numpy.zeros(3, numpy.float32))
    with pytest.raises(TypeError):
        ConvolutionND.from_params(w, unknown=1)


def test_group_errors():
    with pytest.raises(ValueError, match="divisible"):
        ConvolutionND(1, 3, 4, 2, groups=2)
    layer = ConvolutionND(1, 4, 2, groups=2)
    with pytest.raises(ValueError, match="divisible"):
        layer(numpy.ones((1, 3, 5), numpy.float32))


def test_on_device(xp):
    layer = Convolution1D(2, 3, 2)
    if xp is not numpy:
        layer.to_device("@cupy:0")
    y = layer(xp.ones((1, 2, 4), numpy.float32))
    assert type(y.array) is type(xp.ones(1))
    assert y.shape == (1, 3, 3)
