"""average_pooling_2d: values against a window-by-window NumPy reference (padding counts as
zeros), gradients of first and second order, and errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.utils import type_check

# (ksize, stride, pad)
GEOMETRIES = [(2, None, 0), (3, 2, 1), ((2, 3), (1, 2), (1, 0)), (3, 1, 1), ((3, 1), 2, (1, 0))]


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _pair(value):
    return tuple(value) if isinstance(value, tuple) else (value, value)


def _reference(x, ksize, stride, pad):
    """Sum of each zero-padded window over kh * kw, one output pixel at a time."""
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)
    n, c, h, w = x.shape
    out_h, out_w = (h + 2 * ph - kh) // sy + 1, (w + 2 * pw - kw) // sx + 1
    padded = numpy.zeros((n, c, h + 2 * ph, w + 2 * pw))
    padded[:, :, ph:ph + h, pw:pw + w] = x
    y = numpy.empty((n, c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            y[:, :, i, j] = padded[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw].sum(
                axis=(2, 3)) / (kh * kw)
    return y


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward_matches_reference(xp, geometry, dtype):
    x = numpy.random.default_rng(0).uniform(-1, 1, (2, 3, 5, 6)).astype(dtype)
    y = average_pooling_2d(xp.asarray(x), *geometry)
    assert y.dtype == dtype
    expected = _reference(x.astype(numpy.float64), *geometry)
    tolerance = {"atol": 5e-3, "rtol": 5e-3} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(_host(y.array).astype(numpy.float64), expected, **tolerance)


def test_padding_counts_as_zero_in_the_divisor(xp):
    y = average_pooling_2d(xp.ones((1, 1, 2, 2)), 2, 1, 1)
    # A corner window covers one input entry and three padding entries.
    assert float(y.array[0, 0, 0, 0]) == 0.25
    assert float(y.array[0, 0, 1, 1]) == 1.0


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_gradients_match_numerical(xp, geometry):
    rng = numpy.random.default_rng(1)
    x = xp.asarray(rng.standard_normal((2, 2, 5, 4)))

    def pool(a):
        return average_pooling_2d(a, *geometry)

    gy = xp.asarray(rng.standard_normal(pool(x).shape))
    ggx = xp.asarray(rng.standard_normal(x.shape))
    gradient_check.check_backward(pool, (x,), gy)
    gradient_check.check_double_backward(pool, (x,), gy, (ggx,))


def test_gradient_spreads_evenly_over_the_window():
    v = Variable(numpy.zeros((1, 1, 2, 4)))
    y = average_pooling_2d(v, 2)
    y.grad = numpy.array([[[[4.0, 8.0]]]])
    y.backward()
    numpy.testing.assert_array_equal(v.grad, [[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]]]])


def test_three_dimensional_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"ndim == 4"):
        average_pooling_2d(numpy.zeros((2, 3, 4), numpy.float32), 2)


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == f"):
        average_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.int64), 2)


def test_window_larger_than_the_input_raises_assertion_error():
    with pytest.raises(AssertionError, match="must be positive"):
        average_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), 7, 1)


def test_zero_stride_raises_value_error():
    with pytest.raises(ValueError, match="stride must be positive"):
        average_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), 2, 0)
