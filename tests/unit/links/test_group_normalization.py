"""GroupNormalization link: initializers, deferred size, dtype, errors."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import initializers
from chainer_compat.links.normalization.group_normalization import GroupNormalization


def test_given_size_and_initializers():
    link = GroupNormalization(2, 4, eps=1e-3, initial_gamma=initializers.Constant(2.0),
                              initial_beta=0.5)
    numpy.testing.assert_array_equal(link.gamma.array, numpy.full(4, 2.0, numpy.float32))
    numpy.testing.assert_array_equal(link.beta.array, numpy.full(4, 0.5, numpy.float32))
    x = numpy.random.default_rng(0).standard_normal((3, 4, 5)).astype(numpy.float32)
    y = link(x)
    grouped = x.reshape(3, 2, -1).astype(numpy.float64)
    expected = (grouped - grouped.mean(axis=2, keepdims=True)) / numpy.sqrt(
        grouped.var(axis=2, keepdims=True) + 1e-3)
    numpy.testing.assert_allclose(y.array, 2 * expected.reshape(x.shape) + 0.5, rtol=1e-4,
                                  atol=1e-5)


def test_parameters_follow_config_dtype():
    with chainer_compat.using_config("dtype", numpy.float64):
        link = GroupNormalization(1, 3)
    assert link.gamma.dtype == numpy.float64


def test_deferred_size_needs_two_axes():
    link = GroupNormalization(1)
    with pytest.raises(ValueError, match="at least 2"):
        link(numpy.zeros(3, numpy.float32))
    link(numpy.zeros((2, 3), numpy.float32))
    assert link.gamma.shape == (3,)
