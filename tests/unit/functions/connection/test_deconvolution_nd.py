"""deconvolution_nd / _1d / _3d: forward against a scatter-by-loops reference, agreement with
deconvolution_2d at N=2, outsize handling, first and second order gradients, and errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.deconvolution_2d import deconvolution_2d
from chainer_compat.functions.connection.deconvolution_nd import (
    DeconvolutionND,
    deconvolution_1d,
    deconvolution_3d,
    deconvolution_nd,
)
from chainer_compat.utils import type_check


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def reference(x, w, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    """The deconvolution by definition: every input entry adds its weighted filter taps."""
    ndim = x.ndim - 2
    stride, pad, dilate = _tuple(stride, ndim), _tuple(pad, ndim), _tuple(dilate, ndim)
    spatial, ksize = x.shape[2:], w.shape[2:]
    if outsize is None:
        outsize = tuple(s * (size - 1) + (k - 1) * d + 1 - 2 * p
                        for s, size, k, d, p in zip(stride, spatial, ksize, dilate, pad))
    group_in, group_out = x.shape[1] // groups, w.shape[1]
    canvas = numpy.zeros((x.shape[0], group_out * groups) + tuple(
        max(o + 2 * p, s * size + k * d) for o, p, s, size, k, d in
        zip(outsize, pad, stride, spatial, ksize, dilate)))
    for position in itertools.product(*(range(size) for size in spatial)):
        for offset in itertools.product(*(range(k) for k in ksize)):
            index = tuple(q * s + i * d for q, s, i, d in zip(position, stride, offset, dilate))
            for g in range(groups):
                inputs = x[(slice(None), slice(g * group_in, (g + 1) * group_in)) + position]
                taps = w[(slice(g * group_in, (g + 1) * group_in), slice(None)) + offset]
                canvas[(slice(None), slice(g * group_out, (g + 1) * group_out)) + index] += (
                    inputs @ taps)
    y = canvas[(slice(None), slice(None)) + tuple(
        slice(p, p + o) for p, o in zip(pad, outsize))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * ndim)
    return y


# (x shape, W shape, keyword arguments), outsize needing cover_all on some axes included.
GEOMETRIES = [
    ((2, 3, 4), (3, 2, 3), {}),
    ((2, 4, 3), (4, 3, 2), {"stride": 2, "pad": 1, "groups": 2}),
    ((1, 2, 3), (2, 2, 3), {"stride": 3, "outsize": (10,), "dilate": 2}),
    ((1, 2, 3, 2, 3), (2, 3, 2, 1, 2), {"stride": (2, 1, 2), "pad": (1, 0, 0)}),
    ((1, 2, 4, 3, 3), (2, 3, 2, 2, 1), {"stride": 2, "pad": 1, "outsize": (6, 4, 4)}),
]


def _inputs(rng, x_shape, w_shape, groups=1, dtype=numpy.float64):
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    w = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = rng.uniform(-1, 1, w_shape[1] * groups).astype(dtype)
    return x, w, b


@pytest.mark.parametrize("x_shape,w_shape,kwargs", GEOMETRIES)
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_matches_reference(x_shape, w_shape, kwargs, nobias):
    rng = numpy.random.RandomState(0)
    x, w, b = _inputs(rng, x_shape, w_shape, kwargs.get("groups", 1))
    b = None if nobias else b
    y = deconvolution_nd(x, w, b, **kwargs)
    numpy.testing.assert_allclose(y.array, reference(x, w, b, **kwargs), atol=1e-12)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", GEOMETRIES)
def test_gradients(x_shape, w_shape, kwargs):
    rng = numpy.random.RandomState(1)
    x, w, b = _inputs(rng, x_shape, w_shape, kwargs.get("groups", 1))

    def f(x, w, b):
        return deconvolution_nd(x, w, b, **kwargs)

    gy = rng.uniform(-1, 1, f(x, w, b).shape)
    gradient_check.check_backward(f, (x, w, b), gy, atol=1e-6, rtol=1e-5)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in (x, w, b))
    gradient_check.check_double_backward(f, (x, w, b), gy, grad_grads, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("kwargs", [
    {},
    {"stride": (2, 3), "pad": (1, 0), "outsize": (8, 12)},
    {"dilate": (1, 2), "groups": 2, "stride": 2},
])
def test_two_dims_agree_with_deconvolution_2d(kwargs):
    rng = numpy.random.RandomState(2)
    groups = kwargs.get("groups", 1)
    x, w, b = _inputs(rng, (2, 4, 4, 4), (4, 3, 3, 2), groups)
    expected = deconvolution_2d(x, w, b, **kwargs).array
    numpy.testing.assert_allclose(deconvolution_nd(x, w, b, **kwargs).array, expected,
                                  atol=1e-12)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_forward_keeps_dtype(xp, dtype):
    rng = numpy.random.RandomState(3)
    x, w, b = _inputs(rng, (1, 2, 3, 2, 2), (2, 3, 2, 2, 2), dtype=dtype)
    y = deconvolution_3d(xp.asarray(x), xp.asarray(w), xp.asarray(b), stride=2)
    assert y.dtype == dtype
    host = y.array.get() if hasattr(y.array, "get") else y.array
    tolerance = 5e-2 if dtype == numpy.float16 else 1e-5
    expected = reference(*(a.astype(numpy.float64) for a in (x, w, b)), stride=2)
    numpy.testing.assert_allclose(host, expected, atol=tolerance, rtol=tolerance)


def test_cover_all_is_set_by_forward():
    node = DeconvolutionND(1, stride=2, outsize=(7,))
    assert node.cover_all is None
    node.apply((numpy.ones((1, 1, 4)), numpy.ones((1, 1, 2))))
    assert node.cover_all is True
    plain = DeconvolutionND(1, stride=2)
    plain.apply((numpy.ones((1, 1, 4)), numpy.ones((1, 1, 2))))
    assert plain.cover_all is False
    assert plain.outs == (8,)


def test_named_forms_check_the_number_of_axes():
    with pytest.raises(ValueError, match="should be 1"):
        deconvolution_1d(numpy.ones((1, 1, 2, 2)), numpy.ones((1, 1, 2, 2)))
    with pytest.raises(ValueError, match="should be 3"):
        deconvolution_3d(numpy.ones((1, 1, 2)), numpy.ones((1, 1, 2)))


def test_errors():
    x, w = numpy.ones((1, 3, 4)), numpy.ones((3, 1, 2))
    with pytest.raises(type_check.InvalidType):
        deconvolution_nd(x, w, outsize=(20,))
    with pytest.raises(type_check.InvalidType):
        deconvolution_nd(x, numpy.ones((2, 1, 2)))
    with pytest.raises(TypeError, match="divisor"):
        deconvolution_nd(x, w, groups=2)
    with pytest.raises(ValueError):
        deconvolution_nd(x, w, stride=0)
    with pytest.raises(RuntimeError, match="must be positive"):
        deconvolution_nd(numpy.ones((1, 1, 1)), numpy.ones((1, 1, 1)), pad=1)
