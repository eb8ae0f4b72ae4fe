"""max_pooling_nd / _1d / _3d: forward and indexes against a loop reference (cover_all too),
agreement with max_pooling_2d at N=2, first and second order gradients, and errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.pooling._pooling import OutputSizeError
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.functions.pooling.max_pooling_nd import (
    max_pooling_1d,
    max_pooling_3d,
    max_pooling_nd,
)
from chainer_compat.utils import type_check


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def reference(x, ksize, stride, pad, cover_all):
    """The maximum and its flat in-window position for every window, one window at a time."""
    ndim = x.ndim - 2
    ksize, pad = _tuple(ksize, ndim), _tuple(pad, ndim)
    stride = ksize if stride is None else _tuple(stride, ndim)
    extra = tuple(s - 1 if cover_all else 0 for s in stride)
    outs = tuple((size + 2 * p - k + e) // s + 1
                 for size, k, s, p, e in zip(x.shape[2:], ksize, stride, pad, extra))
    canvas = numpy.full(x.shape[:2] + tuple(
        max(size + 2 * p, (o - 1) * s + k) for size, p, o, s, k in
        zip(x.shape[2:], pad, outs, stride, ksize)), -numpy.inf)
    canvas[(slice(None), slice(None)) + tuple(slice(p, p + size)
                                              for p, size in zip(pad, x.shape[2:]))] = x
    y = numpy.zeros(x.shape[:2] + outs)
    indexes = numpy.zeros(x.shape[:2] + outs, dtype=int)
    for position in itertools.product(*(range(o) for o in outs)):
        window = tuple(slice(o * s, o * s + k) for o, s, k in zip(position, stride, ksize))
        block = canvas[(slice(None), slice(None)) + window].reshape(x.shape[:2] + (-1,))
        y[(slice(None), slice(None)) + position] = block.max(-1)
        indexes[(slice(None), slice(None)) + position] = block.argmax(-1)
    return y, indexes


CASES = [
    ((2, 3, 7), 2, None, 0, True),
    ((2, 2, 8), 3, 2, 1, False),
    ((1, 2, 5, 4, 3), (2, 3, 2), (2, 1, 1), (0, 1, 0), True),
    ((1, 2, 4, 5, 6), 2, None, 0, False),
]


def _distinct(rng, shape):
    """Entries far enough apart that a numerical gradient never moves the maximum."""
    return rng.permutation(numpy.prod(shape)).reshape(shape).astype(numpy.float64) * 0.1


@pytest.mark.parametrize("shape,ksize,stride,pad,cover_all", CASES)
def test_forward_and_indexes_match_reference(shape, ksize, stride, pad, cover_all):
    x = numpy.random.RandomState(0).uniform(-1, 1, shape)
    y, indexes = max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices=True)
    expected, expected_indexes = reference(x, ksize, stride, pad, cover_all)
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(indexes, expected_indexes)
    named = max_pooling_1d if len(shape) == 3 else max_pooling_3d
    numpy.testing.assert_array_equal(named(x, ksize, stride, pad, cover_all).array, expected)


@pytest.mark.parametrize("shape,ksize,stride,pad,cover_all", CASES)
def test_gradients(shape, ksize, stride, pad, cover_all):
    rng = numpy.random.RandomState(1)
    x = _distinct(rng, shape)

    def f(x):
        return max_pooling_nd(x, ksize, stride, pad, cover_all)

    gy = rng.uniform(-1, 1, f(x).shape)
    gradient_check.check_backward(f, x, gy, eps=1e-3, atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.uniform(-1, 1, shape), eps=1e-3,
                                         atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("kwargs", [
    {"ksize": 2}, {"ksize": 3, "stride": 2, "pad": 1}, {"ksize": (2, 3), "cover_all": False},
])
def test_two_dims_agree_with_max_pooling_2d(xp, kwargs):
    x = xp.asarray(numpy.random.RandomState(2).uniform(-1, 1, (2, 3, 5, 7)).astype("f"))
    y, indexes = max_pooling_nd(x, return_indices=True, **kwargs)
    y2, indexes2 = max_pooling_2d(x, return_indices=True, **kwargs)
    assert y.dtype == numpy.float32
    assert (y.array == y2.array).all()
    assert (indexes == indexes2).all()


def test_errors():
    x = numpy.ones((1, 1, 4, 4))
    with pytest.raises(ValueError, match="should be 1"):
        max_pooling_1d(x, 2)
    with pytest.raises(ValueError, match="should be 3"):
        max_pooling_3d(x, 2)
    with pytest.raises(ValueError):
        max_pooling_nd(x, 0)
    with pytest.raises(ValueError):
        max_pooling_nd(x, (2, 2, 2))
    with pytest.raises(ValueError, match="at least one spatial"):
        max_pooling_nd(numpy.ones((1, 1)), 2)
    with pytest.raises(type_check.InvalidType):
        max_pooling_nd(numpy.ones((1, 1, 4), dtype=int), 2)
    with pytest.raises(OutputSizeError):
        max_pooling_nd(numpy.ones((1, 1, 2)), 4, cover_all=False)
