"""unpooling_nd / _1d / _3d: forward against a loop reference, outsize handling, agreement with
unpooling_2d at N=2, first and second order gradients, and errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.pooling.unpooling_2d import unpooling_2d
from chainer_compat.functions.pooling.unpooling_nd import unpooling_1d, unpooling_3d, unpooling_nd
from chainer_compat.utils import type_check


def reference(x, ksize, stride, pad, outsize):
    """Every input entry added over its window of the padded output, then the padding cut."""
    ndim = x.ndim - 2
    canvas = numpy.zeros(x.shape[:2] + tuple(
        max(o + 2 * p, s * (size - 1) + k + p) for o, p, s, size, k in
        zip(outsize, pad, stride, x.shape[2:], ksize)))
    for position in itertools.product(*(range(size) for size in x.shape[2:])):
        window = tuple(slice(q * s, q * s + k) for q, s, k in zip(position, stride, ksize))
        canvas[(slice(None), slice(None)) + window] += x[
            (slice(None), slice(None)) + position].reshape(x.shape[:2] + (1,) * ndim)
    return canvas[(slice(None), slice(None)) + tuple(
        slice(p, p + o) for p, o in zip(pad, outsize))]


CASES = [
    ((2, 3, 4), (2,), (2,), (0,), True, None, (7,)),
    ((1, 2, 3), (3,), (2,), (1,), False, (6,), (6,)),
    ((1, 2, 2, 3, 2), (2, 1, 3), (1, 1, 2), (0, 0, 1), True, None, (3, 3, 2)),
    ((1, 1, 3, 2, 2), (2, 2, 2), (2, 2, 2), (1, 0, 0), True, (4, 3, 4), (4, 3, 4)),
]


@pytest.mark.parametrize("shape,ksize,stride,pad,cover_all,outsize,expected_size", CASES)
def test_forward_and_gradients(shape, ksize, stride, pad, cover_all, outsize, expected_size):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape)
    y = unpooling_nd(x, ksize, stride, pad, outsize, cover_all)
    assert y.shape[2:] == expected_size
    numpy.testing.assert_allclose(y.array, reference(x, ksize, stride, pad, expected_size),
                                  atol=1e-12)
    named = unpooling_1d if len(shape) == 3 else unpooling_3d
    numpy.testing.assert_array_equal(
        named(x, ksize, stride, pad, outsize, cover_all).array, y.array)

    def f(x):
        return unpooling_nd(x, ksize, stride, pad, outsize, cover_all)

    gy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(f, x, gy, atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.uniform(-1, 1, shape), atol=1e-6,
                                         rtol=1e-5)


@pytest.mark.parametrize("kwargs", [
    {"ksize": 2}, {"ksize": 3, "stride": 2, "pad": 1, "cover_all": False},
    {"ksize": (2, 3), "outsize": (8, 15)},
])
def test_two_dims_agree_with_unpooling_2d(xp, kwargs):
    x = xp.asarray(numpy.random.RandomState(1).uniform(-1, 1, (2, 3, 4, 5)))
    y = unpooling_nd(x, **kwargs)
    assert (y.array == unpooling_2d(x, **kwargs).array).all()


def test_errors():
    with pytest.raises(type_check.InvalidType):
        unpooling_nd(numpy.ones((1, 1, 3)), 2, outsize=(9,))
    with pytest.raises(ValueError, match="should be 1"):
        unpooling_1d(numpy.ones((1, 1, 3, 3)), 2)
    with pytest.raises(ValueError, match="should be 3"):
        unpooling_3d(numpy.ones((1, 1, 3)), 2)
    with pytest.raises(ValueError):
        unpooling_nd(numpy.ones((1, 1, 3)), 2, outsize=(6, 6))
