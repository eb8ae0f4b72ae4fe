"""Conformance of the N-d and other convolution/pooling variants with Chainer 7.8.1: values
against NumPy references computed here, output shapes, error types and the links' parameters.
Runs on Chainer itself with CHAINER_CONFORMANCE_TARGET=chainer."""

from __future__ import annotations

import importlib
import itertools
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
conv_nd = importlib.import_module(chainer.__name__ + ".utils.conv_nd")

# Each name through its defining module, which Chainer and chainer_compat both have.
_MODULES = {
    "functions.connection.convolution_2d": ["convolution_2d"],
    "functions.connection.deconvolution_2d": ["deconvolution_2d"],
    "functions.connection.convolution_nd": ["convolution_nd", "convolution_1d",
                                            "convolution_3d"],
    "functions.connection.deconvolution_nd": ["deconvolution_nd", "deconvolution_1d",
                                              "deconvolution_3d"],
    "functions.connection.dilated_convolution_2d": ["dilated_convolution_2d"],
    "functions.connection.depthwise_convolution_2d": ["depthwise_convolution_2d"],
    "functions": ["max_pooling_2d"],
    "functions.pooling.max_pooling_nd": ["max_pooling_nd", "max_pooling_1d", "max_pooling_3d"],
    "functions.pooling.average_pooling_nd": ["average_pooling_nd", "average_pooling_1d",
                                             "average_pooling_3d"],
    "functions.pooling.unpooling_nd": ["unpooling_nd", "unpooling_1d", "unpooling_3d"],
    "functions.pooling.upsampling_2d": ["upsampling_2d"],
    "links.connection.convolution_nd": ["ConvolutionND", "Convolution1D", "Convolution3D"],
    "links.connection.deconvolution_nd": ["DeconvolutionND", "Deconvolution1D",
                                          "Deconvolution3D"],
    "links.connection.dilated_convolution_2d": ["DilatedConvolution2D"],
    "links.connection.depthwise_convolution_2d": ["DepthwiseConvolution2D"],
}


class _Names:
    """``F.name`` / ``L.name`` without relying on the package's re-exports."""

    def __init__(self, prefix):
        self._where = {name: module for module, names in _MODULES.items()
                       if (module + ".").startswith(prefix) for name in names}

    def __getattr__(self, name):
        module = importlib.import_module(f"{chainer.__name__}.{self._where[name]}")
        return getattr(module, name)


F = _Names("functions.")
L = _Names("links.")


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def conv_reference(x, w, b=None, stride=1, pad=0, dilate=1, groups=1):
    """N-d convolution by definition, one output position at a time."""
    ndim = x.ndim - 2
    stride, pad, dilate = _tuple(stride, ndim), _tuple(pad, ndim), _tuple(dilate, ndim)
    n, channels = x.shape[:2]
    out_channels, group_in = w.shape[:2]
    ksize = w.shape[2:]
    padded = numpy.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad))
    outs = tuple((size + 2 * p - (k - 1) * d - 1) // s + 1
                 for size, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate))
    group_out = out_channels // groups
    y = numpy.zeros((n, out_channels) + outs)
    for position in itertools.product(*(range(o) for o in outs)):
        for offset in itertools.product(*(range(k) for k in ksize)):
            index = tuple(o * s + i * d for o, s, i, d in zip(position, stride, offset, dilate))
            for g in range(groups):
                patch = padded[(slice(None), slice(g * group_in, (g + 1) * group_in)) + index]
                taps = w[(slice(g * group_out, (g + 1) * group_out), slice(None)) + offset]
                y[(slice(None), slice(g * group_out, (g + 1) * group_out)) + position] += (
                    patch @ taps.T)
    if b is not None:
        y += b.reshape((1, -1) + (1,) * ndim)
    return y


def pool_reference(x, ksize, stride, pad, reduce, pad_fill):
    """Pooling by definition without cover_all: ``reduce`` over each padded window."""
    ndim = x.ndim - 2
    ksize, stride, pad = _tuple(ksize, ndim), _tuple(stride, ndim), _tuple(pad, ndim)
    padded = numpy.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad),
                       constant_values=pad_fill)
    outs = tuple((size + 2 * p - k) // s + 1
                 for size, k, s, p in zip(x.shape[2:], ksize, stride, pad))
    y = numpy.zeros(x.shape[:2] + outs)
    for position in itertools.product(*(range(o) for o in outs)):
        window = tuple(slice(o * s, o * s + k) for o, s, k in zip(position, stride, ksize))
        block = padded[(slice(None), slice(None)) + window].reshape(x.shape[:2] + (-1,))
        y[(slice(None), slice(None)) + position] = reduce(block)
    return y


@pytest.fixture
def rng():
    return numpy.random.RandomState(7)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", [
    ((2, 3, 7), (4, 3, 3), {"stride": 2, "pad": 1}),
    ((2, 4, 6), (6, 2, 2), {"dilate": 2, "groups": 2}),
    ((1, 2, 4, 3, 5), (3, 2, 2, 1, 3), {"stride": (1, 2, 1), "pad": (1, 0, 1)}),
])
def test_convolution_nd_matches_definition(rng, x_shape, w_shape, kwargs):
    x = rng.uniform(-1, 1, x_shape)
    w = rng.uniform(-1, 1, w_shape)
    b = rng.uniform(-1, 1, w_shape[0])
    y = F.convolution_nd(x, w, b, **kwargs)
    numpy.testing.assert_allclose(y.array, conv_reference(x, w, b, **kwargs), atol=1e-12)
    named = F.convolution_1d if len(x_shape) == 3 else F.convolution_3d
    numpy.testing.assert_allclose(named(x, w, b, **kwargs).array, y.array, atol=1e-12)


def test_convolution_nd_cover_all_adds_a_window(rng):
    x = rng.uniform(-1, 1, (1, 1, 6))
    w = rng.uniform(-1, 1, (1, 1, 3))
    assert F.convolution_nd(x, w, stride=2).shape == (1, 1, 2)
    assert F.convolution_nd(x, w, stride=2, cover_all=True).shape == (1, 1, 3)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", [
    ((2, 3, 4), (3, 2, 3), {"stride": 2, "pad": 1}),
    ((1, 4, 3, 2, 3), (4, 1, 2, 2, 1), {"stride": (2, 1, 3), "groups": 2}),
])
def test_deconvolution_nd_is_the_adjoint_of_convolution_nd(rng, x_shape, w_shape, kwargs):
    x = rng.uniform(-1, 1, x_shape)
    w = rng.uniform(-1, 1, w_shape)
    y = F.deconvolution_nd(x, w, **kwargs)
    z = rng.uniform(-1, 1, y.shape)
    forward = F.convolution_nd(z, w, **kwargs)
    assert forward.shape == x.shape
    # <deconv(x), z> == <x, conv(z)>: the definition of the transpose.
    numpy.testing.assert_allclose(numpy.vdot(y.array, z), numpy.vdot(x, forward.array),
                                  rtol=1e-10)
    named = F.deconvolution_1d if len(x_shape) == 3 else F.deconvolution_3d
    numpy.testing.assert_allclose(named(x, w, **kwargs).array, y.array, atol=1e-12)


def test_deconvolution_nd_output_size_and_outsize(rng):
    x = rng.uniform(-1, 1, (1, 2, 3, 4))
    w = rng.uniform(-1, 1, (2, 3, 3, 2))
    assert F.deconvolution_nd(x, w, stride=2, pad=1).shape == (1, 3, 5, 6)
    assert F.deconvolution_nd(x, w, stride=2, pad=1, outsize=(6, 7)).shape == (1, 3, 6, 7)
    with pytest.raises(type_check.InvalidType):
        F.deconvolution_nd(x, w, stride=2, pad=1, outsize=(9, 7))


def test_convolution_nd_at_two_dims_agrees_with_convolution_2d(rng):
    x = rng.uniform(-1, 1, (2, 4, 5, 6))
    w = rng.uniform(-1, 1, (6, 2, 3, 2))
    kwargs = {"stride": (2, 1), "pad": (1, 0), "dilate": (1, 2), "groups": 2}
    numpy.testing.assert_allclose(F.convolution_nd(x, w, **kwargs).array,
                                  F.convolution_2d(x, w, **kwargs).array, atol=1e-12)
    wd = rng.uniform(-1, 1, (4, 3, 3, 2))
    numpy.testing.assert_allclose(F.deconvolution_nd(x, wd, **kwargs).array,
                                  F.deconvolution_2d(x, wd, **kwargs).array, atol=1e-12)


def test_dilated_convolution_2d_matches_definition(rng):
    x = rng.uniform(-1, 1, (2, 2, 7, 6))
    w = rng.uniform(-1, 1, (3, 2, 3, 2))
    b = rng.uniform(-1, 1, 3)
    y = F.dilated_convolution_2d(x, w, b, 1, 2, 2)
    numpy.testing.assert_allclose(y.array, conv_reference(x, w, b, 1, 2, 2), atol=1e-12)


def test_depthwise_convolution_2d_orders_outputs_by_input_channel(rng):
    x = rng.uniform(-1, 1, (2, 3, 5, 4))
    w = rng.uniform(-1, 1, (2, 3, 2, 2))
    b = rng.uniform(-1, 1, 6)
    y = F.depthwise_convolution_2d(x, w, b, stride=1, pad=1)
    expected = numpy.concatenate(
        [conv_reference(x[:, c:c + 1], w[:, c:c + 1], pad=1) for c in range(3)], axis=1)
    expected += b.reshape(1, -1, 1, 1)
    numpy.testing.assert_allclose(y.array, expected, atol=1e-12)


@pytest.mark.parametrize("shape,ksize,stride,pad", [
    ((2, 3, 7), 3, 2, 1),
    ((1, 2, 4, 5, 3), (2, 3, 1), (2, 1, 1), (1, 1, 0)),
])
def test_max_and_average_pooling_nd_match_definition(rng, shape, ksize, stride, pad):
    x = rng.uniform(-1, 1, shape)
    y = F.max_pooling_nd(x, ksize, stride, pad, cover_all=False)
    numpy.testing.assert_array_equal(
        y.array, pool_reference(x, ksize, stride, pad, lambda b: b.max(-1), -numpy.inf))
    mean = F.average_pooling_nd(x, ksize, stride, pad)
    numpy.testing.assert_allclose(
        mean.array, pool_reference(x, ksize, stride, pad, lambda b: b.mean(-1), 0), atol=1e-12)
    excluded = F.average_pooling_nd(x, ksize, stride, pad, pad_value=None)
    numpy.testing.assert_allclose(
        excluded.array,
        pool_reference(x, ksize, stride, pad, lambda b: numpy.nanmean(b, -1), numpy.nan),
        atol=1e-12)
    if len(shape) == 3:
        named = (F.max_pooling_1d, F.average_pooling_1d)
    else:
        named = (F.max_pooling_3d, F.average_pooling_3d)
    numpy.testing.assert_array_equal(named[0](x, ksize, stride, pad, False).array, y.array)
    numpy.testing.assert_array_equal(named[1](x, ksize, stride, pad).array, mean.array)


def test_max_pooling_nd_cover_all_default_and_indices(rng):
    x = rng.uniform(-1, 1, (1, 2, 5))
    y, indexes = F.max_pooling_nd(x, 2, return_indices=True)
    assert y.shape == (1, 2, 3)
    assert indexes.shape == (1, 2, 3)
    assert F.max_pooling_nd(x, 2, cover_all=False).shape == (1, 2, 2)
    padded = numpy.pad(x, ((0, 0), (0, 0), (0, 1)), constant_values=-numpy.inf)
    picked = numpy.take_along_axis(padded.reshape(1, 2, 3, 2), indexes[..., None], -1)[..., 0]
    numpy.testing.assert_array_equal(picked, y.array)


def test_unpooling_nd_repeats_entries(rng):
    x = rng.uniform(-1, 1, (1, 2, 2, 3, 2))
    y = F.unpooling_nd(x, 2, cover_all=False)
    assert y.shape == (1, 2, 4, 6, 4)
    expected = x.repeat(2, 2).repeat(2, 3).repeat(2, 4)
    numpy.testing.assert_array_equal(y.array, expected)
    numpy.testing.assert_array_equal(F.unpooling_3d(x, 2, cover_all=False).array, expected)
    one = rng.uniform(-1, 1, (1, 1, 3))
    numpy.testing.assert_array_equal(F.unpooling_1d(one, 3, outsize=(9,)).array,
                                     one.repeat(3, 2))


def test_upsampling_2d_places_maxima_back(rng):
    x = rng.uniform(-1, 1, (2, 3, 4, 6))
    y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    up = F.upsampling_2d(y, indexes, 2, outsize=x.shape[2:])
    assert up.shape == x.shape
    expected = numpy.where(x == y.array.repeat(2, 2).repeat(2, 3), x, 0)
    numpy.testing.assert_array_equal(up.array, expected)


@pytest.mark.parametrize("call", [
    lambda x: F.convolution_1d(x, numpy.ones((1, 1, 1, 1))),
    lambda x: F.convolution_3d(x, numpy.ones((1, 1, 1, 1))),
    lambda x: F.deconvolution_1d(x, numpy.ones((1, 1, 1, 1))),
    lambda x: F.max_pooling_1d(x, 2),
    lambda x: F.max_pooling_3d(x, 2),
    lambda x: F.average_pooling_1d(x, 2),
    lambda x: F.average_pooling_3d(x, 2),
    lambda x: F.average_pooling_nd(x, 2, pad_value=1),
])
def test_value_errors(call):
    with pytest.raises(ValueError):
        call(numpy.ones((1, 1, 4, 4)))


def test_type_errors_on_mismatched_inputs():
    with pytest.raises(type_check.InvalidType):
        F.convolution_nd(numpy.ones((1, 2, 4), "i"), numpy.ones((1, 2, 2), "i"))
    with pytest.raises(type_check.InvalidType):
        F.convolution_nd(numpy.ones((1, 2, 4)), numpy.ones((1, 2, 2, 2)))
    with pytest.raises(TypeError):
        F.convolution_nd(numpy.ones((1, 3, 4)), numpy.ones((2, 1, 2)), groups=2)
    with pytest.raises(TypeError):
        F.convolution_nd(numpy.ones((1, 4, 4)), numpy.ones((3, 2, 2)), groups=2)
    with pytest.raises(TypeError):
        F.deconvolution_nd(numpy.ones((1, 3, 4)), numpy.ones((3, 1, 2)), groups=2)


def test_im2col_nd_and_col2im_nd(rng):
    img = rng.uniform(-1, 1, (2, 3, 4, 5, 3))
    col = conv_nd.im2col_nd_cpu(img, (2, 3, 1), (1, 2, 1), (1, 0, 1))
    assert col.shape == (2, 3, 2, 3, 1, 5, 2, 5)
    numpy.testing.assert_array_equal(col[:, :, 1, 2, 0, 1, 1, 2], img[:, :, 1, 4, 1])
    numpy.testing.assert_array_equal(col[:, :, 0, 0, 0, 0, 0, 0], 0)
    other = rng.uniform(-1, 1, col.shape)
    back = conv_nd.col2im_nd_cpu(other, (1, 2, 1), (1, 0, 1), (4, 5, 3))
    assert back.shape == img.shape
    numpy.testing.assert_allclose(numpy.vdot(col, other), numpy.vdot(img, back), rtol=1e-10)
    assert conv_nd.as_tuple(3, 2) == (3, 3)


def test_convolution_nd_links_shapes_and_lazy_init(rng):
    x = rng.uniform(-1, 1, (2, 4, 5, 4, 3)).astype(numpy.float32)
    layer = L.ConvolutionND(3, 6, (3, 2, 1), pad=1, groups=2)
    assert layer.W.array is None
    assert layer.b.shape == (6,)
    y = layer(x)
    assert layer.W.shape == (6, 2, 3, 2, 1)
    assert y.shape == (2, 6, 5, 5, 5)
    assert L.Convolution3D(4, 2, 3).W.shape == (2, 4, 3, 3, 3)
    one = L.Convolution1D(None, 3, 2, nobias=True)
    assert one.b is None
    assert one(numpy.ones((1, 5, 4), numpy.float32)).shape == (1, 3, 3)
    assert one.W.shape == (3, 5, 2)
    with pytest.raises(ValueError):
        L.ConvolutionND(2, 3, 4, 2, groups=2)


def test_convolution_nd_from_params(rng):
    w = rng.uniform(-1, 1, (4, 1, 2, 3)).astype(numpy.float32)
    b = rng.uniform(-1, 1, 4).astype(numpy.float32)
    layer = L.ConvolutionND.from_params(w, b, stride=2, groups=2)
    numpy.testing.assert_array_equal(layer.W.array, w)
    numpy.testing.assert_array_equal(layer.b.array, b)
    x = rng.uniform(-1, 1, (1, 2, 5, 7)).astype(numpy.float32)
    numpy.testing.assert_allclose(
        layer(x).array, F.convolution_nd(x, w, b, stride=2, groups=2).array, rtol=1e-6)


def test_deconvolution_nd_links_shapes_and_lazy_init(rng):
    layer = L.DeconvolutionND(2, 6, 3, stride=2, groups=3)
    assert layer.W.array is None
    y = layer(numpy.ones((1, 3, 2, 4), numpy.float32))
    assert layer.W.shape == (3, 2, 3, 3)
    assert y.shape == (1, 6, 5, 9)
    assert L.Deconvolution1D(2, 3, 2, outsize=(5,))(
        numpy.ones((1, 2, 4), numpy.float32)).shape == (1, 3, 5)
    assert L.Deconvolution3D(2, 3, (1, 2, 3)).W.shape == (2, 3, 1, 2, 3)


def test_dilated_and_depthwise_links(rng):
    dilated = L.DilatedConvolution2D(4, 3, dilate=2)
    assert dilated.W.array is None
    x = rng.uniform(-1, 1, (1, 2, 7, 7)).astype(numpy.float32)
    y = dilated(x)
    assert dilated.W.shape == (4, 2, 3, 3)
    assert y.shape == (1, 4, 3, 3)
    depthwise = L.DepthwiseConvolution2D(None, 3, 2, pad=1)
    assert depthwise.W.array is None and depthwise.b.array is None
    z = depthwise(x)
    assert depthwise.W.shape == (3, 2, 2, 2)
    assert depthwise.b.shape == (6,)
    assert z.shape == (1, 6, 8, 8)
    assert L.DepthwiseConvolution2D(2, 1, 3, nobias=True).b is None


@pytest.mark.parametrize("call", [
    lambda: F.convolution_nd(numpy.ones((1, 1, 4)), numpy.ones((1, 1, 2)), stride=(1, 1)),
    lambda: F.deconvolution_nd(numpy.ones((1, 1, 4)), numpy.ones((1, 1, 2)), pad=(0, 0)),
    lambda: F.max_pooling_nd(numpy.ones((1, 1, 4)), (2, 2)),
    lambda: F.unpooling_nd(numpy.ones((1, 1, 4)), 2, outsize=(8, 8)),
    lambda: F.convolution_nd(numpy.ones((1, 1, 2)), numpy.ones((1, 1, 3))),
    lambda: F.deconvolution_nd(numpy.ones((1, 1, 1)), numpy.ones((1, 1, 1)), pad=1),
    lambda: F.max_pooling_nd(numpy.ones((1, 1, 2)), 4, cover_all=False),
    lambda: F.average_pooling_nd(numpy.ones((1, 1, 2, 2)), 4),
    lambda: conv_nd.im2col_nd_cpu(numpy.ones((1, 1, 2)), (3,), (1,), (0,)),
    lambda: conv_nd.col2im_nd_cpu(numpy.ones((1, 1, 2, 2, 3, 2)), (1, 1), (0, 0), (4,)),
    lambda: conv_nd.col2im_nd_cpu(numpy.ones((1, 1, 2, 2, 3, 2)), (1, 1), (0, 0), (4, 3, 2)),
])
def test_wrong_length_sizes_and_empty_outputs_fail_an_assertion(call):
    with pytest.raises(AssertionError):
        call()
