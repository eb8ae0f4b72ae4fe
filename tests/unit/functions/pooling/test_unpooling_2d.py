"""unpooling_2d: values against a pixel-by-pixel NumPy reference, output sizes, gradients of
first and second order, and errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.functions.pooling.unpooling_2d import unpooling_2d
from chainer_compat.utils import type_check

# (ksize, stride, pad, cover_all)
GEOMETRIES = [
    (2, None, 0, True),
    (2, None, 0, False),
    (3, 2, 1, True),
    (3, 2, 1, False),
    ((2, 3), (1, 2), (1, 0), True),
    (2, 2, 2, False),
]


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _pair(value):
    return tuple(value) if isinstance(value, tuple) else (value, value)


def _unpool(x, geometry):
    ksize, stride, pad, cover_all = geometry
    return unpooling_2d(x, ksize, stride, pad, cover_all=cover_all)


def _reference(x, ksize, stride, pad, cover_all, outsize=None):
    """Each input entry added over its window, then the padding cropped."""
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)
    n, c, h, w = x.shape
    if outsize is None:
        shrink_h, shrink_w = (sy - 1, sx - 1) if cover_all else (0, 0)
        outsize = (sy * (h - 1) + kh - shrink_h - 2 * ph, sx * (w - 1) + kw - shrink_w - 2 * pw)
    out_h, out_w = outsize
    big = numpy.zeros((n, c, sy * h + kh + out_h + ph, sx * w + kw + out_w + pw))
    for i in range(h):
        for j in range(w):
            big[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw] += x[:, :, i:i + 1, j:j + 1]
    return big[:, :, ph:ph + out_h, pw:pw + out_w]


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward_matches_reference(xp, geometry, dtype):
    x = numpy.random.default_rng(0).uniform(-1, 1, (2, 3, 4, 5)).astype(dtype)
    y = _unpool(xp.asarray(x), geometry)
    assert y.dtype == dtype
    expected = _reference(x.astype(numpy.float64), *geometry)
    tolerance = {"atol": 5e-3, "rtol": 5e-3} if dtype == numpy.float16 else {"rtol": 1e-6}
    numpy.testing.assert_allclose(_host(y.array).astype(numpy.float64), expected, **tolerance)


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_max_pooling_with_the_same_arguments_restores_the_input_size(geometry):
    x = numpy.zeros((1, 1, 4, 5), numpy.float32)
    y = _unpool(x, geometry)
    assert max_pooling_2d(y, *geometry).shape == x.shape


def test_explicit_outsize_is_used(xp):
    x = xp.asarray(numpy.random.default_rng(1).uniform(-1, 1, (1, 2, 3, 3)))
    y = unpooling_2d(x, 2, outsize=(5, 6))
    assert y.shape == (1, 2, 5, 6)
    numpy.testing.assert_allclose(_host(y.array), _reference(_host(x), 2, None, 0, True, (5, 6)))


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_gradients_match_numerical(xp, geometry):
    rng = numpy.random.default_rng(2)
    x = xp.asarray(rng.standard_normal((2, 2, 3, 4)))

    def unpool(a):
        return _unpool(a, geometry)

    gy = xp.asarray(rng.standard_normal(unpool(x).shape))
    ggx = xp.asarray(rng.standard_normal(x.shape))
    gradient_check.check_backward(unpool, (x,), gy)
    gradient_check.check_double_backward(unpool, (x,), gy, (ggx,))


def test_gradients_with_explicit_outsize_match_numerical():
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((1, 2, 3, 3))

    def unpool(a):
        return unpooling_2d(a, 2, outsize=(5, 6))

    gy = rng.standard_normal((1, 2, 5, 6))
    gradient_check.check_backward(unpool, (x,), gy)
    gradient_check.check_double_backward(unpool, (x,), gy, (rng.standard_normal(x.shape),))


def test_outsize_that_does_not_pool_back_raises_invalid_type():
    x = numpy.zeros((1, 1, 5, 5), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"shape\[2\] == 4"):
        unpooling_2d(x, 2, outsize=(7, 10))
    with pytest.raises(type_check.InvalidType, match=r"shape\[3\] == 6"):
        unpooling_2d(x, 2, outsize=(10, 11))


def test_three_dimensional_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"ndim == 4"):
        unpooling_2d(numpy.zeros((2, 3, 4), numpy.float32), 2)


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == f"):
        unpooling_2d(numpy.zeros((1, 1, 4, 4), numpy.int32), 2)
