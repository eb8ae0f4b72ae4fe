"""Tests for chainer_compat.links.connection.local_convolution_2d: parameter shapes (strided
ones included), initializers, lazy initialization, gradients and serialization."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check, serializers
from chainer_compat.functions.connection.local_convolution_2d import local_convolution_2d
from chainer_compat.links.connection.local_convolution_2d import LocalConvolution2D


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(16)


def _rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_strided_layer_sizes_its_parameters_for_the_strided_output():
    # Compat: Chainer sizes these as if the stride were 1 and then fails on the input.
    link = LocalConvolution2D(3, 2, in_size=7, ksize=3, stride=2)
    assert link.W.shape == (2, 3, 3, 3, 3, 3) and link.b.shape == (2, 3, 3)
    x = _rand(1, 3, 7, 7)
    numpy.testing.assert_allclose(
        link(x).array, local_convolution_2d(x, link.W, link.b, 2).array)


def test_initializers_and_extra_keywords():
    link = LocalConvolution2D(2, 2, in_size=3, ksize=2, initialW=0.5, initial_bias=1.5,
                              unused=True)
    assert (link.W.array == 0.5).all() and (link.b.array == 1.5).all()
    y = link(numpy.ones((1, 2, 3, 3), numpy.float32))
    numpy.testing.assert_allclose(y.array, numpy.full((1, 2, 2, 2), 0.5 * 8 + 1.5))


def test_lazy_layer_reads_channels_and_size_from_the_first_input():
    link = LocalConvolution2D(3, 4, ksize=(2, 3))
    assert link.W.array is None
    assert link(_rand(2, 3, 4, 5)).shape == (2, 4, 3, 3)
    assert link.W.shape == (4, 3, 3, 3, 2, 3) and link.b.shape == (4, 3, 3)


def test_gradients_to_input_and_parameters():
    link = LocalConvolution2D(2, 2, in_size=4, ksize=2, stride=(1, 2))
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    x = _rand(2, 2, 4, 4, dtype=numpy.float64)
    gy = _rand(2, 2, 3, 2, dtype=numpy.float64)
    gradient_check.check_backward(link, x, gy, params=tuple(link.params()),
                                  dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def test_npz_keys(tmp_path):
    path = tmp_path / "local.npz"
    serializers.save_npz(str(path), LocalConvolution2D(2, 2, in_size=3, ksize=2))
    assert sorted(numpy.load(path).files) == ["W", "b"]
