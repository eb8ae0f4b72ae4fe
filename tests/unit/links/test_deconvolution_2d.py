"""Tests for chainer_compat.links.connection.deconvolution_2d: Deconvolution2D's construction
forms, lazy input channels, parameters, outsize, outputs, gradients, errors and devices."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check, initializers
from chainer_compat.functions.connection.deconvolution_2d import deconvolution_2d
from chainer_compat.links.connection.deconvolution_2d import Deconvolution2D


def test_full_form_creates_parameters_of_chainers_shapes():
    link = Deconvolution2D(3, 4, 5)
    assert (link.out_channels, link.ksize, link.outsize) == (4, 5, (None, None))
    assert (link.stride, link.pad, link.dilate, link.groups) == ((1, 1), (0, 0), (1, 1), 1)
    assert link.W.shape == (3, 4, 5, 5) and link.W.dtype == numpy.float32
    assert link.b.shape == (4,) and link.b.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(4, numpy.float32))
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]
    assert str(link) == "Deconvolution2D()"  # Chainer gives it no printable specs


def test_two_argument_form_is_out_channels_and_ksize_with_lazy_w():
    link = Deconvolution2D(4, 3, stride=2)
    assert (link.out_channels, link.ksize) == (4, 3)
    assert link.W.array is None
    x = numpy.random.default_rng(0).standard_normal((2, 5, 3, 4)).astype(numpy.float32)
    y = link(x)
    assert link.W.shape == (5, 4, 3, 3)
    assert y.shape == (2, 4, 7, 9)
    expected = deconvolution_2d(x, link.W.array, link.b.array, stride=2)
    numpy.testing.assert_array_equal(y.array, expected.array)


def test_lazy_initialization_with_groups():
    link = Deconvolution2D(None, 6, 3, groups=2)
    link(numpy.zeros((1, 4, 3, 3), numpy.float32))
    assert link.W.shape == (4, 3, 3, 3) and link.b.shape == (6,)


def test_outsize_is_passed_to_the_function():
    rng = numpy.random.default_rng(1)
    link = Deconvolution2D(2, 3, 3, stride=2, pad=1, outsize=(6, 5),
                           initial_bias=initializers.Uniform(1.0))
    x = rng.standard_normal((1, 2, 3, 3)).astype(numpy.float32)
    y = link(x)
    assert y.shape == (1, 3, 6, 5)
    expected = deconvolution_2d(x, link.W.array, link.b.array, stride=2, pad=1, outsize=(6, 5))
    numpy.testing.assert_array_equal(y.array, expected.array)


def test_nobias_leaves_b_none():
    link = Deconvolution2D(2, 3, 2, nobias=True)
    assert link.b is None and [name for name, _ in link.namedparams()] == ["/W"]


def test_backward_fills_parameter_gradients():
    rng = numpy.random.default_rng(2)
    link = Deconvolution2D(2, 4, 2, stride=2, groups=2,
                           initialW=initializers.Normal(dtype=numpy.float64),
                           initial_bias=initializers.Normal(dtype=numpy.float64))
    x = rng.standard_normal((2, 2, 3, 3))
    gy = rng.standard_normal(link(x).shape)
    gradient_check.check_backward(link, x, gy, params=(link.W, link.b), atol=1e-7, rtol=1e-6)


def test_array_bias_of_wrong_shape_raises_value_error():
    # Compat: Chainer asserts this shape; a user-caused condition is a ValueError here.
    with pytest.raises(ValueError, match=r"initial_bias must have shape \(3,\), got \(2,\)"):
        Deconvolution2D(2, 3, 2, initial_bias=numpy.zeros(2, numpy.float32))
    link = Deconvolution2D(2, 3, 2, initial_bias=numpy.float32(0.5))  # a scalar is fine
    numpy.testing.assert_array_equal(link.b.array, numpy.full(3, 0.5, numpy.float32))


@pytest.mark.parametrize("in_channels, out_channels, match", [
    (3, 4, "the number of input channels must be divisible by the number of groups"),
    (4, 3, "the number of output channels must be divisible by the number of groups"),
])
def test_groups_not_dividing_channels_raise_value_error(in_channels, out_channels, match):
    with pytest.raises(ValueError, match=match):
        Deconvolution2D(in_channels, out_channels, 3, groups=2)


def test_removed_keyword_arguments_raise_chainers_errors():
    with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
        Deconvolution2D(2, 3, 3, deterministic=True)
    with pytest.raises(TypeError, match=r"__init__\(\) got unexpected keyword argument\(s\) "
                                        r"'use_cudnn'"):
        Deconvolution2D(2, 3, 3, use_cudnn=True)


@pytest.mark.gpu
def test_lazy_initialization_follows_the_link_to_the_device(cupy):
    link = Deconvolution2D(3, 2)
    link.to_gpu()
    y = link(cupy.zeros((1, 4, 5, 5), numpy.float32))
    assert isinstance(link.W.array, cupy.ndarray) and isinstance(y.array, cupy.ndarray)
    assert link.W.shape == (4, 3, 2, 2)
