"""DeconvolutionND / Deconvolution1D / Deconvolution3D: parameter shapes, lazy
initialization, the two-size form, outsize, and agreement with the function."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.connection.deconvolution_nd import deconvolution_nd
from chainer_compat.links.connection.deconvolution_nd import (
    Deconvolution1D,
    Deconvolution3D,
    DeconvolutionND,
)


def test_eager_parameters_and_forward():
    layer = DeconvolutionND(2, 4, 6, (3, 2), stride=2, pad=1, groups=2)
    assert layer.W.shape == (4, 3, 3, 2)
    assert layer.b.shape == (6,)
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 4, 3, 4)).astype(numpy.float32)
    y = layer(x)
    expected = deconvolution_nd(x, layer.W.array, layer.b.array, 2, 1, groups=2).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    layer.cleargrads()
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert layer.W.grad.shape == layer.W.shape


def test_lazy_initialization_two_size_form_and_outsize():
    layer = DeconvolutionND(1, 3, 2, stride=2, outsize=(7,))
    assert layer.W.array is None
    y = layer(numpy.ones((1, 5, 3), numpy.float32))
    assert layer.W.shape == (5, 3, 2)
    assert y.shape == (1, 3, 7)


def test_named_forms():
    one = Deconvolution1D(2, 3, 3, nobias=True)
    assert one.b is None
    assert one(numpy.ones((1, 2, 4), numpy.float32)).shape == (1, 3, 6)
    three = Deconvolution3D(None, 4, (1, 2, 3), dilate=(1, 1, 2))
    assert three(numpy.ones((1, 2, 2, 2, 2), numpy.float32)).shape == (1, 4, 2, 3, 6)
    assert three.W.shape == (2, 4, 1, 2, 3)


def test_group_errors():
    with pytest.raises(ValueError, match="divisible"):
        DeconvolutionND(1, 4, 3, 2, groups=2)
