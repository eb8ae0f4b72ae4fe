"""Chainer-visible handling of edge-case arguments found by the eighth probe: which exception a
bad argument raises, and which degenerate argument still works. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("indices", [
    numpy.array([1.0, 0.0, 2.0]),
    numpy.array([[1, 0, 2]], numpy.int32),
], ids=["float", "two-dimensional"])
def test_permutate_rejects_indices_that_are_not_a_1d_int_array_with_value_error(indices):
    with pytest.raises(ValueError):
        F.permutate(numpy.ones((3, 2), numpy.float32), indices)


@pytest.mark.parametrize("unpooling", ["unpooling_2d", "unpooling_nd"])
def test_unpooling_to_an_empty_size_gives_an_empty_output_and_zero_gradient(unpooling):
    # ksize 1 with pad 1 takes a column from each side: 2 columns unpool to 0.
    x = chainer.Variable(numpy.ones((2, 3, 3, 2), numpy.float32))
    y = getattr(F, unpooling)(x, 1, 1, 1)
    assert y.shape == (2, 3, 1, 0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros(x.shape, numpy.float32))
