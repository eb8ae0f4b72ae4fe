"""Tests for chainer_compat.links.connection.deformable_convolution_2d: the two children, zero
default filters of the sampler, zero offsets reducing to a convolution, gradients and
serialization."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check, serializers
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.links.connection.deformable_convolution_2d import (
    DeformableConvolution2D,
    DeformableConvolution2DSampler,
)


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(17)


def _rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_zero_offset_predictor_gives_a_plain_convolution():
    link = DeformableConvolution2D(2, 3, 3, stride=2, pad=1, offset_initialW=0,
                                   deform_initialW=0.25, deform_initial_bias=0.5)
    x = _rand(2, 2, 5, 5)
    expected = convolution_2d(x, link.deform_conv.W, link.deform_conv.b, 2, 1)
    numpy.testing.assert_allclose(link(x).array, expected.array, rtol=1e-5, atol=1e-6)
    assert (link.deform_conv.b.array == 0.5).all()


def test_sampler_defaults_and_attributes():
    sampler = DeformableConvolution2DSampler(2, 3, (2, 3), stride=2, pad=(1, 0))
    assert sampler.W.shape == (3, 2, 2, 3) and not sampler.W.array.any()
    assert (sampler.stride, sampler.pad, sampler.initialW) == ((2, 2), (1, 0), None)
    assert DeformableConvolution2DSampler(2, 3, 2, nobias=True).b is None


def test_gradients_reach_both_children():
    link = DeformableConvolution2D(2, 2, 2, deform_initialW=_rand(2, 2, 2, 2))
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    # Small offset filters keep the sampling positions clear of integer pixels' kinks.
    link.offset_conv.W.array *= 0.1
    link.offset_conv.b.array[...] = 0.37
    x = _rand(1, 2, 3, 3, dtype=numpy.float64)
    gy = _rand(1, 2, 2, 2, dtype=numpy.float64)
    gradient_check.check_backward(link, x, gy, params=tuple(link.params()),
                                  dtype=numpy.float64, eps=1e-4, atol=1e-5, rtol=1e-4)


def test_npz_keys(tmp_path):
    path = tmp_path / "deformable.npz"
    serializers.save_npz(str(path), DeformableConvolution2D(2, 3, 2))
    assert sorted(numpy.load(path).files) == [
        "deform_conv/W", "deform_conv/b", "offset_conv/W", "offset_conv/b"]
