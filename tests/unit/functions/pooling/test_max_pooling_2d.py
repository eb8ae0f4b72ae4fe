"""max_pooling_2d: values and indices against a window-by-window NumPy reference, gradients of
first and second order, shapes, and errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.utils import type_check

# (ksize, stride, pad, cover_all)
GEOMETRIES = [
    (2, None, 0, True),
    (3, 2, 1, True),
    (3, 2, 1, False),
    ((2, 3), (1, 2), (1, 0), True),
    (3, 1, 1, False),
    ((1, 2), 3, 0, True),  # its last row of windows lies wholly in the padding: -inf
]
# Every window holds an input entry, so every output is finite.
FINITE_GEOMETRIES = GEOMETRIES[:-1]


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _pair(value):
    return tuple(value) if isinstance(value, tuple) else (value, value)


def _reference(x, ksize, stride, pad, cover_all):
    """Max and argmax of each window, one output pixel at a time."""
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)
    n, c, h, w = x.shape
    extra_h, extra_w = (sy - 1, sx - 1) if cover_all else (0, 0)
    out_h = (h + 2 * ph - kh + extra_h) // sy + 1
    out_w = (w + 2 * pw - kw + extra_w) // sx + 1
    padded = numpy.full((n, c, h + 2 * ph + kh + sy, w + 2 * pw + kw + sx), -numpy.inf)
    padded[:, :, ph:ph + h, pw:pw + w] = x
    y = numpy.empty((n, c, out_h, out_w))
    indexes = numpy.empty((n, c, out_h, out_w), dtype=numpy.int64)
    for i in range(out_h):
        for j in range(out_w):
            window = padded[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw].reshape(n, c, -1)
            y[:, :, i, j] = window.max(axis=2)
            indexes[:, :, i, j] = window.argmax(axis=2)
    return y, indexes


def _distinct(shape, dtype, seed=0):
    """Entries at least 0.05 apart, so that no small step changes which entry is largest."""
    rng = numpy.random.default_rng(seed)
    size = int(numpy.prod(shape))
    return (rng.permutation(size).reshape(shape) * 0.05 - size * 0.025).astype(dtype)


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward_and_indices_match_reference(xp, geometry, dtype):
    x = _distinct((2, 3, 5, 6), numpy.float64) / 8
    ksize, stride, pad, cover_all = geometry
    y, indexes = max_pooling_2d(xp.asarray(x.astype(dtype)), ksize, stride, pad, cover_all,
                                return_indices=True)
    expected, expected_indexes = _reference(x.astype(dtype).astype(numpy.float64), *geometry)
    assert y.dtype == dtype
    assert numpy.isneginf(expected).any() == (geometry == GEOMETRIES[-1])
    assert type(y.array) is type(xp.zeros(0)) and type(indexes) is type(xp.zeros(0))
    numpy.testing.assert_array_equal(_host(y.array).astype(numpy.float64), expected)
    numpy.testing.assert_array_equal(_host(indexes), expected_indexes)


def test_ties_pick_the_first_position_and_padding_never_wins(xp):
    x = xp.full((1, 1, 3, 3), -5.0)
    y, indexes = max_pooling_2d(x, 2, 2, 1, cover_all=False, return_indices=True)
    assert (_host(y.array) == -5.0).all()
    # The window at (0, 0) covers only x[0, 0], at its position 3 (ky=1, kx=1).
    assert int(indexes[0, 0, 0, 0]) == 3
    assert int(indexes[0, 0, 1, 1]) == 0


@pytest.mark.parametrize("geometry", FINITE_GEOMETRIES)
def test_gradients_match_numerical(xp, geometry):
    x = xp.asarray(_distinct((2, 2, 5, 4), numpy.float64, seed=1))
    ksize, stride, pad, cover_all = geometry

    def pool(a):
        return max_pooling_2d(a, ksize, stride, pad, cover_all)

    rng = numpy.random.default_rng(2)
    gy = xp.asarray(rng.standard_normal(pool(x).shape))
    ggx = xp.asarray(rng.standard_normal(x.shape))
    gradient_check.check_backward(pool, (x,), gy, eps=1e-3)
    gradient_check.check_double_backward(pool, (x,), gy, (ggx,), eps=1e-3)


def test_gradient_goes_to_the_maximum_only():
    x = numpy.array([[[[1.0, 4.0], [3.0, 2.0]]]])
    from chainer_compat import Variable

    v = Variable(x)
    y = max_pooling_2d(v, 2)
    y.grad = numpy.full(y.shape, 7.0)
    y.backward()
    numpy.testing.assert_array_equal(v.grad, [[[[0.0, 7.0], [0.0, 0.0]]]])


def test_overlapping_windows_add_their_gradients():
    from chainer_compat import Variable

    v = Variable(numpy.array([[[[0.0, 9.0, 0.0]]]]))
    y = max_pooling_2d(v, (1, 2), 1, cover_all=False)
    y.grad = numpy.ones(y.shape)
    y.backward()
    numpy.testing.assert_array_equal(v.grad, [[[[0.0, 2.0, 0.0]]]])


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5, 6)])
def test_input_without_two_spatial_axes_raises_value_error(shape):
    with pytest.raises(ValueError, match="should be 2"):
        max_pooling_2d(numpy.zeros(shape, numpy.float32), 2)


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == f"):
        max_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.int32), 2)


def test_empty_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"size > 0"):
        max_pooling_2d(numpy.zeros((0, 1, 4, 4), numpy.float32), 2)


def test_window_larger_than_the_input_raises_assertion_and_value_error():
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    with pytest.raises(AssertionError, match="output sizes must be positive"):
        max_pooling_2d(x, 7, 1, cover_all=False)
    with pytest.raises(ValueError, match="Use a smaller ksize"):
        max_pooling_2d(x, 7, 1, cover_all=False)


@pytest.mark.parametrize("kwargs, word", [({"ksize": 0}, "ksize"), ({"ksize": 2, "stride": 0},
                                                                      "stride"),
                                          ({"ksize": 2, "pad": -1}, "pad"),
                                          ({"ksize": (2, 2, 2)}, "ksize")])
def test_bad_window_arguments_raise_value_error(kwargs, word):
    with pytest.raises(ValueError, match=word):
        max_pooling_2d(numpy.zeros((1, 1, 4, 4), numpy.float32), **kwargs)


def test_nan_wins_its_window(xp):
    x = xp.zeros((1, 1, 2, 4))
    x[0, 0, 1, 0] = xp.nan
    y, indexes = max_pooling_2d(x, 2, return_indices=True)
    assert numpy.isnan(float(y.array[0, 0, 0, 0])) and float(y.array[0, 0, 0, 1]) == 0.0
    assert int(indexes[0, 0, 0, 0]) == 2


def test_max_pooling_2d_applies_the_n_d_node_as_chainer_7_does():
    # Computational graphs, hooks and code that dispatches on the creator see MaxPoolingND.
    y = max_pooling_2d(numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4), 2)
    assert type(y.creator).__name__ == "MaxPoolingND"
    assert y.creator.label == "MaxPoolingND"
    numpy.testing.assert_array_equal(y.array, [[[[5, 7], [13, 15]]]])
