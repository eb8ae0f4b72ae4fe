"""average_pooling_nd / _1d / _3d: both ``pad_value`` modes against a loop reference,
agreement with average_pooling_2d at N=2, first and second order gradients, and errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.functions.pooling.average_pooling_nd import (
    AveragePoolingND,
    average_pooling_1d,
    average_pooling_3d,
    average_pooling_nd,
)
from chainer_compat.utils import type_check


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def reference(x, ksize, stride, pad, pad_value):
    """Each window's mean: over the whole window (padding as zeros) or, with ``pad_value``
    None, over its input entries only."""
    ndim = x.ndim - 2
    ksize, pad = _tuple(ksize, ndim), _tuple(pad, ndim)
    stride = ksize if stride is None else _tuple(stride, ndim)
    padded = numpy.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad),
                       constant_values=numpy.nan)
    outs = tuple((size + 2 * p - k) // s + 1
                 for size, k, s, p in zip(x.shape[2:], ksize, stride, pad))
    y = numpy.zeros(x.shape[:2] + outs)
    for position in itertools.product(*(range(o) for o in outs)):
        window = tuple(slice(o * s, o * s + k) for o, s, k in zip(position, stride, ksize))
        block = padded[(slice(None), slice(None)) + window].reshape(x.shape[:2] + (-1,))
        if pad_value is None:
            value = numpy.nanmean(block, -1)
        else:
            value = numpy.nansum(block, -1) / block.shape[-1]
        y[(slice(None), slice(None)) + position] = value
    return y


CASES = [
    ((2, 3, 7), 3, 2, 1),
    ((1, 2, 6), 2, None, 0),
    ((1, 2, 5, 4, 3), (2, 3, 2), (2, 1, 1), (1, 1, 1)),
]


@pytest.mark.parametrize("shape,ksize,stride,pad", CASES)
@pytest.mark.parametrize("pad_value", [0, None])
def test_forward_and_gradients(shape, ksize, stride, pad, pad_value):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, shape)
    y = average_pooling_nd(x, ksize, stride, pad, pad_value)
    numpy.testing.assert_allclose(y.array, reference(x, ksize, stride, pad, pad_value),
                                  atol=1e-12)
    named = average_pooling_1d if len(shape) == 3 else average_pooling_3d
    numpy.testing.assert_allclose(named(x, ksize, stride, pad, pad_value).array, y.array)

    def f(x):
        return average_pooling_nd(x, ksize, stride, pad, pad_value)

    gy = rng.uniform(-1, 1, y.shape)
    gradient_check.check_backward(f, x, gy, atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(f, x, gy, rng.uniform(-1, 1, shape), atol=1e-6,
                                         rtol=1e-5)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_two_dims_agree_with_average_pooling_2d(xp, dtype):
    x = xp.asarray(numpy.random.RandomState(1).uniform(-1, 1, (2, 3, 5, 7)).astype(dtype))
    y = average_pooling_nd(x, 3, 2, 1)
    assert y.dtype == dtype
    expected = average_pooling_2d(x, 3, 2, 1).array
    assert float(abs(y.array.astype("d") - expected.astype("d")).max()) < 1e-2


def test_errors():
    x = numpy.ones((1, 1, 4, 4))
    with pytest.raises(ValueError, match="pad_value must be either 0 or None"):
        average_pooling_nd(x, 2, pad_value=1)
    with pytest.raises(ValueError, match="cover_all"):
        AveragePoolingND(2, 2, cover_all=True)
    with pytest.raises(ValueError, match="should be 1"):
        average_pooling_1d(x, 2)
    with pytest.raises(ValueError, match="should be 3"):
        average_pooling_3d(x, 2)
    with pytest.raises(type_check.InvalidType):
        average_pooling_nd(numpy.ones((1, 1, 4), dtype=int), 2)


def test_float16_without_padding_values_sums_in_float16_as_chainer():
    # Chainer sums its im2col copy, laid out (n, c, k1, k2, k3, o1, o2, o3), over the window
    # axes with numpy's float16 sum, and divides by the float16 count of each window's
    # entries. A float32 sum rounded once (our other dtypes' way) is an ulp off here.
    rng = numpy.random.RandomState(0)
    x = numpy.asarray(rng.uniform(-2, 2, (2, 2, 4, 3, 3)), numpy.float16)
    y = average_pooling_nd(x, 2, 2, 1, pad_value=None).array
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)))
    inside = numpy.pad(numpy.ones(x.shape[2:], numpy.float16), 1)
    outs = y.shape[2:]
    col = numpy.empty(x.shape[:2] + (2, 2, 2) + outs, numpy.float16)
    counts = numpy.empty(outs, numpy.float16)
    for i, j, k in itertools.product(*(range(n) for n in outs)):
        block = (slice(2 * i, 2 * i + 2), slice(2 * j, 2 * j + 2), slice(2 * k, 2 * k + 2))
        col[..., i, j, k] = padded[(Ellipsis,) + block]
        counts[i, j, k] = inside[block].sum()
    expected = col.sum(axis=(2, 3, 4)) / counts
    assert y.tobytes() == expected.tobytes()
    rounded_once = (col.astype(numpy.float32).sum(axis=(2, 3, 4)) / counts).astype(
        numpy.float16)
    assert rounded_once.tobytes() != expected.tobytes()  # the case tells the two apart


def test_float16_window_counts_round_as_chainers_products_of_axis_counts():
    # A 47 x 47 window holds 2209 entries, which float16 rounds to 2208 (Chainer multiplies
    # the per-axis counts in float16). The window's float16 sum of ones, rounded at each step
    # of NumPy's reduction over the im2col copy, stops at 2048 (2048 + 1 rounds to 2048), so
    # the average is 2048 / 2208 (0.9277); an exact count would give 0.9272.
    x = Variable(numpy.ones((1, 1, 50, 50), numpy.float16))
    y = average_pooling_nd(x, 47, 1, 0, pad_value=None)
    count = numpy.float16(47) * numpy.float16(47)
    assert count == 2208 and numpy.float16(2048) + numpy.float16(1) == 2048
    expected = numpy.float16(2048) / count
    assert y.array[0, 0, 0, 0].tobytes() == expected.tobytes()
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    # the corner entry lies in one window only: its gradient is 1 / 2208 in float16
    assert x.grad[0, 0, 0, 0].tobytes() == (numpy.float16(1) / count).tobytes()
