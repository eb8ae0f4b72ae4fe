"""A pooling with one window per plane (a global average pooling, say) sums each window as one
contiguous run, as Chainer's im2col does, so it rounds as Chainer's. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _runs(x):
    """Each plane as one contiguous run of its entries."""
    return numpy.ascontiguousarray(x).reshape(x.shape[:2] + (-1,))


@pytest.mark.parametrize("spatial", [(7, 7), (13, 11)])
def test_global_average_pooling_2d_is_the_mean_of_each_plane_as_one_run(spatial):
    x = numpy.random.RandomState(0).standard_normal((2, 16) + spatial).astype(numpy.float32)
    y = F.average_pooling_2d(x, spatial, 1)
    expected = _runs(x).sum(axis=2) / numpy.float32(x[0, 0].size)
    numpy.testing.assert_array_equal(y.array, expected.reshape(y.shape))


def test_global_average_pooling_nd_is_the_mean_of_each_volume_as_one_run():
    x = numpy.random.RandomState(1).standard_normal((2, 4, 5, 5, 5)).astype(numpy.float32)
    y = F.average_pooling_nd(x, 5)
    expected = _runs(x).sum(axis=2) / numpy.float32(125)
    numpy.testing.assert_array_equal(y.array, expected.reshape(y.shape))


def test_unpooling_gradient_of_one_window_sums_it_as_one_run():
    x = chainer.Variable(numpy.zeros((2, 3, 1, 1), numpy.float32))
    y = F.unpooling_2d(x, 6, cover_all=False)
    gy = numpy.random.RandomState(2).standard_normal(y.shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(x.grad, _runs(gy).sum(axis=2).reshape(x.shape))
