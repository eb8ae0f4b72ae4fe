"""Tests for chainer_compat.links.connection.inception and inceptionbn: Inception and InceptionBN
output sizes, initializers, pooling choices, batch statistics in training, gradients and
errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check, using_config
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.links.connection.inception import Inception
from chainer_compat.links.connection.inceptionbn import InceptionBN


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(15)


def _rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_inception_keeps_spatial_size_and_stacks_channels():
    link = Inception(None, 1, 2, 3, 1, 2, 4, conv_init=0.1, bias_init=0.2)
    y = link(_rand(2, 3, 5, 6))
    assert y.shape == (2, 1 + 3 + 2 + 4, 5, 6)
    assert (y.array >= 0).all()
    assert (link.conv5.W.array == numpy.float32(0.1)).all()
    assert (link.projp.b.array == numpy.float32(0.2)).all()


def test_inception_gradients_to_input_and_parameters():
    link = Inception(2, 1, 1, 1, 1, 1, 1)
    # Random biases: with zero ones, a window of ReLU zeros sits exactly on the next kink.
    for param in link.params():
        param.array = _rand(*param.shape, dtype=numpy.float64)
    x = _rand(1, 2, 3, 3, dtype=numpy.float64)
    gy = _rand(1, 4, 3, 3, dtype=numpy.float64)
    gradient_check.check_backward(link, x, gy, params=tuple(link.params()),
                                  dtype=numpy.float64, atol=1e-5, rtol=1e-4)


def test_inception_bn_average_pool_path_without_projection():
    link = InceptionBN(3, 0, 2, 2, 2, 2, "avg")
    x = _rand(2, 3, 4, 4)
    with using_config("train", False):
        y = link(x)
    assert y.shape == (2, 2 + 2 + 3, 4, 4)
    expected_pool = average_pooling_2d(x, 3, stride=1, pad=1).array
    numpy.testing.assert_allclose(y.array[:, 4:], expected_pool, rtol=1e-6)


def test_inception_bn_training_normalizes_with_batch_statistics():
    link = InceptionBN(3, 2, 2, 2, 2, 2, "max", proj_pool=2)
    with using_config("train", True):
        link(_rand(4, 3, 4, 4))
    # Every BatchNormalization saw one batch: its running mean moved away from zero.
    for name in ("conv1n", "proj3n", "conv3n", "proj33n", "conv33an", "conv33bn", "poolpn"):
        assert getattr(link, name).avg_mean.any(), name


def test_inception_bn_dtype_reaches_batch_normalization():
    link = InceptionBN(3, 2, 2, 2, 2, 2, "max", proj_pool=2, dtype=numpy.float16)
    assert link.conv33bn.gamma.dtype == numpy.float16
    assert link.conv1n.avg_var.dtype == numpy.float16


def test_inception_bn_messages():
    with pytest.raises(NotImplementedError, match="pooltype must be 'max' or 'avg', got 'min'"):
        InceptionBN(3, 0, 2, 2, 2, 2, "min")
    with pytest.raises(ValueError, match="stride must be 1 when out1 > 0, got stride=2"):
        InceptionBN(3, 2, 2, 2, 2, 2, "max", proj_pool=2, stride=2)
    with pytest.raises(ValueError, match="proj_pool must be given when out1 > 0"):
        InceptionBN(3, 2, 2, 2, 2, 2, "max")
