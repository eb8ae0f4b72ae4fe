"""Tests for chainer_compat.links.connection.convolution_2d: Convolution2D's construction forms,
lazy input channels, parameters, outputs, gradients, groups, from_params, errors and devices."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, initializers
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.links.connection.convolution_2d import Convolution2D


def test_full_form_creates_parameters_of_chainers_shapes():
    link = Convolution2D(3, 4, 5)
    assert (link.in_channels, link.out_channels, link.ksize) == (3, 4, 5)
    assert (link.stride, link.pad, link.dilate, link.groups) == ((1, 1), (0, 0), (1, 1), 1)
    assert link.W.shape == (4, 3, 5, 5) and link.W.dtype == numpy.float32
    assert link.b.shape == (4,) and link.b.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(4, numpy.float32))
    assert isinstance(link.W.initializer, initializers.LeCunNormal)
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]


def test_two_argument_form_is_out_channels_and_ksize_with_lazy_w():
    link = Convolution2D(4, (3, 2))
    assert (link.in_channels, link.out_channels, link.ksize) == (None, 4, (3, 2))
    assert link.W.array is None and not link.W.is_initialized
    assert link.b.shape == (4,)
    x = numpy.random.default_rng(0).standard_normal((2, 5, 6, 6)).astype(numpy.float32)
    y = link(x)
    assert link.W.shape == (4, 5, 3, 2)
    assert link.in_channels is None  # compat: Chainer keeps the constructor's value
    assert y.shape == (2, 4, 4, 5)
    expected = convolution_2d(x, link.W.array, link.b.array)
    numpy.testing.assert_array_equal(y.array, expected.array)


def test_in_channels_none_initializes_w_on_first_call_with_groups():
    link = Convolution2D(None, 6, 3, stride=2, pad=1, groups=3)
    x = numpy.random.default_rng(1).standard_normal((1, 9, 5, 5)).astype(numpy.float32)
    link(x)
    assert link.W.shape == (6, 3, 3, 3)


@pytest.mark.parametrize("make", [
    lambda channels: Convolution2D(channels, 4, 2, groups=2),
    lambda channels: chainer.links.ConvolutionND(2, channels, 4, 2, groups=2),
    lambda channels: chainer.links.MLPConvolution2D(channels, (4, 3), 2),
])
def test_a_float_channel_count_works_as_in_chainer(make):
    # Chainer computes int(in_channels / groups), so `ch / 2` (a float in Python 3) works.
    x = numpy.random.rand(1, 4, 5, 5).astype(numpy.float32)
    by_float, by_int = make(4.0), make(4)
    assert by_float(x).shape == by_int(x).shape
    for (name, param), (_, reference) in zip(sorted(by_float.namedparams()),
                                             sorted(by_int.namedparams()), strict=True):
        assert param.shape == reference.shape, name


def test_str_lists_chainers_specs():
    link = Convolution2D(None, 3, 2, nobias=True, dilate=2)
    assert str(link) == ("Convolution2D(in_channels=None, out_channels=3, ksize=2, "
                         "stride=(1, 1), pad=(0, 0), nobias=True, dilate=(2, 2), groups=1)")


def test_nobias_leaves_b_none_and_only_w_registered():
    link = Convolution2D(2, 3, 2, nobias=True)
    assert link.b is None
    assert [name for name, _ in link.namedparams()] == ["/W"]


def test_initializers_and_arrays_fill_the_parameters():
    w = numpy.arange(2 * 1 * 2 * 2, dtype=numpy.float64).reshape(2, 1, 2, 2)
    link = Convolution2D(1, 2, 2, initialW=w, initial_bias=numpy.array([1.0, -1.0]))
    numpy.testing.assert_array_equal(link.W.array, w)
    numpy.testing.assert_array_equal(link.b.array, [1.0, -1.0])
    link = Convolution2D(1, 2, 2, initialW=initializers.One(), initial_bias=0.5)
    numpy.testing.assert_array_equal(link.W.array, numpy.ones((2, 1, 2, 2)))
    numpy.testing.assert_array_equal(link.b.array, [0.5, 0.5])


def test_forward_matches_function_with_link_geometry():
    rng = numpy.random.default_rng(2)
    link = Convolution2D(4, 6, (3, 2), stride=(2, 1), pad=1, dilate=(1, 2), groups=2,
                         initial_bias=initializers.Uniform(1.0))
    x = rng.standard_normal((2, 4, 7, 8)).astype(numpy.float32)
    y = link(x)
    expected = convolution_2d(x, link.W.array, link.b.array, stride=(2, 1), pad=1,
                              dilate=(1, 2), groups=2)
    numpy.testing.assert_array_equal(y.array, expected.array)


def test_backward_fills_parameter_gradients():
    rng = numpy.random.default_rng(3)
    link = Convolution2D(2, 3, 2, stride=2, initialW=initializers.Normal(dtype=numpy.float64),
                         initial_bias=initializers.Normal(dtype=numpy.float64))
    x = rng.standard_normal((2, 2, 5, 5))
    y = link(x)
    gy = rng.standard_normal(y.shape)
    gradient_check.check_backward(link, x, gy, params=(link.W, link.b), atol=1e-7, rtol=1e-6)
    link.cleargrads()
    y = link(x)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(link.b.grad, gy.sum(axis=(0, 2, 3)))
    assert link.W.grad.shape == link.W.shape


@pytest.mark.parametrize("in_channels, out_channels, match", [
    (3, 4, "the number of input channels must be divisible by the number of groups"),
    (4, 3, "the number of output channels must be divisible by the number of groups"),
])
def test_groups_not_dividing_channels_raise_value_error(in_channels, out_channels, match):
    with pytest.raises(ValueError, match=match):
        Convolution2D(in_channels, out_channels, 3, groups=2)
    lazy = Convolution2D(None, out_channels, 3, groups=2) if out_channels % 2 == 0 else None
    if lazy is not None:
        with pytest.raises(ValueError, match=match):
            lazy(numpy.zeros((1, in_channels, 4, 4), numpy.float32))


def test_from_params_copies_arrays_and_keeps_geometry():
    rng = numpy.random.default_rng(4)
    w = rng.standard_normal((6, 2, 3, 3)).astype(numpy.float32)
    b = chainer.Variable(rng.standard_normal(6).astype(numpy.float32))
    link = Convolution2D.from_params(w, b, stride=2, pad=1, groups=2)
    assert (link.in_channels, link.out_channels, link.ksize) == (4, 6, (3, 3))
    assert (link.stride, link.pad, link.groups) == ((2, 2), (1, 1), 2)
    numpy.testing.assert_array_equal(link.W.array, w)
    numpy.testing.assert_array_equal(link.b.array, b.array)
    assert link.W.array is not w
    with pytest.raises(ValueError, match="b must have out_channels"):
        Convolution2D.from_params(w, numpy.zeros(5, numpy.float32), groups=2)


def test_removed_keyword_arguments_raise_chainers_errors():
    with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
        Convolution2D(2, 3, 3, deterministic=True)
    with pytest.raises(TypeError, match=r"__init__\(\) got unexpected keyword argument\(s\) "
                                        r"'use_cudnn'"):
        Convolution2D(2, 3, 3, use_cudnn=True)
    with pytest.raises(TypeError, match=r"'wscale'"):
        Convolution2D(2, 3, 3, wscale=1)


@pytest.mark.gpu
def test_lazy_initialization_follows_the_link_to_the_device(cupy):
    link = Convolution2D(3, 2)
    link.to_gpu()
    y = link(cupy.zeros((1, 4, 5, 5), numpy.float32))
    assert isinstance(link.W.array, cupy.ndarray) and isinstance(y.array, cupy.ndarray)
    assert link.W.shape == (3, 4, 2, 2)
