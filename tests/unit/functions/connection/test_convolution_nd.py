"""convolution_nd / _1d / _3d and utils.conv_nd: forward against a loop reference, agreement
with convolution_2d at N=2, first and second order gradients, and argument errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.functions.connection.convolution_nd import (
    ConvolutionND,
    convolution_1d,
    convolution_3d,
    convolution_nd,
)
from chainer_compat.utils import conv, conv_nd, type_check


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def reference(x, w, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
    """The N-d convolution by definition, one output position and kernel tap at a time."""
    ndim = x.ndim - 2
    stride, pad, dilate = _tuple(stride, ndim), _tuple(pad, ndim), _tuple(dilate, ndim)
    ksize = w.shape[2:]
    outs = tuple(conv.get_conv_outsize(size, k, s, p, cover_all, d)
                 for size, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate))
    # Enough padding after each axis for cover_all's last window.
    canvas = numpy.zeros(x.shape[:2] + tuple(
        max(size + 2 * p, (o - 1) * s + (k - 1) * d + 1 + p)
        for size, p, o, s, k, d in zip(x.shape[2:], pad, outs, stride, ksize, dilate)))
    canvas[(slice(None), slice(None)) + tuple(slice(p, p + size)
                                              for p, size in zip(pad, x.shape[2:]))] = x
    out_channels, group_in = w.shape[:2]
    group_out = out_channels // groups
    y = numpy.zeros((x.shape[0], out_channels) + outs)
    for position in itertools.product(*(range(o) for o in outs)):
        for offset in itertools.product(*(range(k) for k in ksize)):
            index = tuple(o * s + i * d for o, s, i, d in zip(position, stride, offset, dilate))
            for g in range(groups):
                patch = canvas[(slice(None), slice(g * group_in, (g + 1) * group_in)) + index]
                taps = w[(slice(g * group_out, (g + 1) * group_out), slice(None)) + offset]
                y[(slice(None), slice(g * group_out, (g + 1) * group_out)) + position] += (
                    patch @ taps.T)
    if b is not None:
        y += b.reshape((1, -1) + (1,) * ndim)
    return y


# (x shape, W shape, keyword arguments): 1-D and 3-D, strides, padding, dilation, groups.
GEOMETRIES = [
    ((2, 3, 7), (2, 3, 3), {}),
    ((2, 4, 8), (6, 2, 3), {"stride": 2, "pad": 1, "groups": 2}),
    ((1, 2, 9), (3, 2, 2), {"dilate": 3, "cover_all": True, "stride": 2}),
    ((1, 2, 4, 3, 5), (3, 2, 2, 1, 3), {"stride": (1, 2, 1), "pad": (1, 0, 1)}),
    ((2, 2, 3, 4, 3), (2, 1, 2, 2, 2), {"dilate": (1, 2, 1), "groups": 2, "cover_all": True,
                                        "stride": 2}),
]


def _inputs(rng, x_shape, w_shape, dtype=numpy.float64):
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    w = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = rng.uniform(-1, 1, w_shape[0]).astype(dtype)
    return x, w, b


@pytest.mark.parametrize("x_shape,w_shape,kwargs", GEOMETRIES)
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_matches_reference(x_shape, w_shape, kwargs, nobias):
    rng = numpy.random.RandomState(0)
    x, w, b = _inputs(rng, x_shape, w_shape)
    b = None if nobias else b
    y = convolution_nd(x, w, b, **kwargs)
    numpy.testing.assert_allclose(y.array, reference(x, w, b, **kwargs), atol=1e-12)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_forward_keeps_dtype(xp, dtype):
    rng = numpy.random.RandomState(1)
    x, w, b = _inputs(rng, (2, 2, 5, 4, 3), (3, 2, 2, 2, 2), dtype)
    y = convolution_3d(xp.asarray(x), xp.asarray(w), xp.asarray(b), pad=1)
    assert y.dtype == dtype
    assert type(y.array) is type(xp.asarray(x))
    expected = reference(*(a.astype(numpy.float64) for a in (x, w, b)), pad=1)
    tolerance = 5e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(_host(y.array), expected, atol=tolerance, rtol=tolerance)


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


@pytest.mark.parametrize("kwargs", [
    {},
    {"stride": (2, 1), "pad": (1, 2)},
    {"dilate": (2, 1), "groups": 2, "cover_all": True, "stride": 2},
])
def test_two_dims_agree_with_convolution_2d(kwargs):
    rng = numpy.random.RandomState(2)
    x, w, b = _inputs(rng, (2, 4, 6, 5), (4, 2 if kwargs.get("groups") else 4, 3, 2))
    expected = convolution_2d(x, w, b, **kwargs).array
    numpy.testing.assert_allclose(convolution_nd(x, w, b, **kwargs).array, expected,
                                  atol=1e-12)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", GEOMETRIES)
def test_gradients(x_shape, w_shape, kwargs):
    rng = numpy.random.RandomState(3)
    x, w, b = _inputs(rng, x_shape, w_shape)

    def f(x, w, b):
        return convolution_nd(x, w, b, **kwargs)

    gy = rng.uniform(-1, 1, f(x, w, b).shape)
    gradient_check.check_backward(f, (x, w, b), gy, atol=1e-6, rtol=1e-5)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in (x, w, b))
    gradient_check.check_double_backward(f, (x, w, b), gy, grad_grads, atol=1e-6, rtol=1e-5)


def test_gradients_on_device(xp):
    rng = numpy.random.RandomState(4)
    x, w, b = (xp.asarray(a) for a in _inputs(rng, (2, 2, 5), (3, 2, 2)))

    def f(x, w, b):
        return convolution_1d(x, w, b, stride=2, pad=1)

    gy = xp.asarray(rng.uniform(-1, 1, f(x, w, b).shape))
    gradient_check.check_backward(f, (x, w, b), gy, atol=1e-6, rtol=1e-5)


def test_node_keeps_the_geometry_as_tuples():
    node = ConvolutionND(3, stride=2, pad=(1, 0, 1), dilate=1, groups=1)
    assert node.stride == (2, 2, 2)
    assert node.pad == (1, 0, 1)
    assert node.dilate == (1, 1, 1)


@pytest.mark.parametrize("call", [
    lambda x, w: convolution_1d(x, w),
    lambda x, w: convolution_3d(numpy.ones((1, 1, 3)), numpy.ones((1, 1, 2))),
])
def test_named_forms_check_the_number_of_axes(call):
    with pytest.raises(ValueError, match="should be"):
        call(numpy.ones((1, 1, 3, 3)), numpy.ones((1, 1, 2, 2)))


@pytest.mark.parametrize("kwargs", [
    {"stride": 0}, {"pad": -1}, {"dilate": 0}, {"groups": 0}, {"stride": (1, 1)},
])
def test_bad_geometry_raises_value_error(kwargs):
    with pytest.raises(ValueError):
        convolution_nd(numpy.ones((1, 1, 4)), numpy.ones((1, 1, 2)), **kwargs)


def test_mismatched_inputs():
    with pytest.raises(type_check.InvalidType):
        convolution_nd(numpy.ones((1, 2, 4)), numpy.ones((1, 2, 2, 2)))
    with pytest.raises(type_check.InvalidType):
        convolution_nd(numpy.ones((1, 2, 4)), numpy.ones((1, 2, 2)), numpy.ones((1, 1)))
    with pytest.raises(ValueError, match="channel count"):
        convolution_nd(numpy.ones((1, 3, 4)), numpy.ones((1, 2, 2)))
    with pytest.raises(TypeError, match="divisor of that of output"):
        convolution_nd(numpy.ones((1, 4, 4)), numpy.ones((3, 2, 2)), groups=2)


def test_empty_output_raises_runtime_error():
    with pytest.raises(RuntimeError, match="must be positive"):
        convolution_nd(numpy.ones((1, 1, 2, 5)), numpy.ones((1, 1, 3, 3)))


def test_im2col_nd_matches_the_2d_im2col():
    rng = numpy.random.RandomState(5)
    img = rng.uniform(-1, 1, (2, 3, 5, 6))
    col = conv_nd.im2col_nd_cpu(img, (2, 3), (2, 1), (1, 0), pval=0.5, cover_all=True,
                                dilate=(1, 2))
    expected = conv.im2col_cpu(img, 2, 3, 2, 1, 1, 0, pval=0.5, cover_all=True, dy=1, dx=2)
    numpy.testing.assert_array_equal(col, expected)
    gpu_form = conv_nd.im2col_nd_gpu(img, (2, 3), (2, 1), (1, 0), cover_all=True, dilate=(1, 2))
    numpy.testing.assert_array_equal(
        gpu_form, conv.im2col(img, 2, 3, 2, 1, 1, 0, cover_all=True, dy=1, dx=2))


def test_col2im_nd_matches_the_2d_col2im():
    rng = numpy.random.RandomState(6)
    col = rng.uniform(-1, 1, (2, 3, 2, 3, 4, 3))
    expected = conv.col2im(col, 2, 1, 1, 0, 6, 5, dy=1, dx=2)
    numpy.testing.assert_allclose(conv_nd.col2im_nd(col, (2, 1), (1, 0), (6, 5), (1, 2)),
                                  expected, atol=1e-12)


def test_im2col_nd_rejects_empty_output_and_bad_lengths():
    with pytest.raises(RuntimeError):
        conv_nd.im2col_nd_cpu(numpy.ones((1, 1, 2)), (3,), (1,), (0,))
    with pytest.raises(ValueError):
        conv_nd.as_tuple((1, 2), 3)
