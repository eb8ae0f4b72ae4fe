"""Chainer-visible behaviour of ``convolution_2d``, ``deconvolution_2d`` and the
``Convolution2D`` / ``Deconvolution2D`` links: output shapes and values and first-order
gradients against loop-by-loop NumPy references, output sizes of ``chainer.utils.conv``, the
links' construction forms and parameters, and the exception types. Each case was checked
against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import itertools
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
# Chainer's module paths, so the file does not depend on the package re-exports.
convolution_2d = importlib.import_module(
    chainer.__name__ + ".functions.connection.convolution_2d").convolution_2d
deconvolution_2d = importlib.import_module(
    chainer.__name__ + ".functions.connection.deconvolution_2d").deconvolution_2d
Convolution2D = importlib.import_module(
    chainer.__name__ + ".links.connection.convolution_2d").Convolution2D
Deconvolution2D = importlib.import_module(
    chainer.__name__ + ".links.connection.deconvolution_2d").Deconvolution2D
conv_utils = importlib.import_module(chainer.__name__ + ".utils.conv")
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _conv_reference(x, w, b, gy, stride, pad, cover_all, dilate, groups):
    """``y``, and the gradients ``gx, gW, gb`` for output gradient ``gy`` (None: skipped), by
    looping over output channels and pixels."""
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)
    n, c, h, width = x.shape
    out_channels, group_channels, kh, kw = w.shape
    span_h, span_w = (kh - 1) * dy + 1, (kw - 1) * dx + 1
    extra_h, extra_w = (sy - 1, sx - 1) if cover_all else (0, 0)
    out_h = (h + 2 * ph - span_h + extra_h) // sy + 1
    out_w = (width + 2 * pw - span_w + extra_w) // sx + 1
    padded = numpy.zeros((n, c, h + 2 * ph + sy, width + 2 * pw + sx))
    padded[:, :, ph:ph + h, pw:pw + width] = x
    y = numpy.zeros((n, out_channels, out_h, out_w))
    gx_padded, gw = numpy.zeros_like(padded), numpy.zeros_like(w)
    per_group = out_channels // groups
    for o, i, j in itertools.product(range(out_channels), range(out_h), range(out_w)):
        g = o // per_group
        index = (slice(None), slice(g * group_channels, (g + 1) * group_channels),
                 slice(i * sy, i * sy + span_h, dy), slice(j * sx, j * sx + span_w, dx))
        y[:, o, i, j] = (padded[index] * w[o]).sum(axis=(1, 2, 3))
        if gy is not None:
            gx_padded[index] += gy[:, o, i, j, None, None, None] * w[o]
            gw[o] += (gy[:, o, i, j, None, None, None] * padded[index]).sum(axis=0)
    y = y if b is None else y + b.reshape(1, -1, 1, 1)
    grads = None
    if gy is not None:
        grads = (gx_padded[:, :, ph:ph + h, pw:pw + width], gw, gy.sum(axis=(0, 2, 3)))
    return y, grads


def _deconv_reference(x, w, b, stride, pad, outsize, dilate, groups):
    """``y`` by scattering each input pixel's weighted filter taps."""
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)
    n, in_channels, h, width = x.shape
    _, group_out, kh, kw = w.shape
    group_in = in_channels // groups
    if outsize is None:
        outsize = (sy * (h - 1) + (kh - 1) * dy + 1 - 2 * ph,
                   sx * (width - 1) + (kw - 1) * dx + 1 - 2 * pw)
    out_h, out_w = outsize
    canvas = numpy.zeros((n, group_out * groups, max(out_h + 2 * ph, sy * h + kh * dy),
                          max(out_w + 2 * pw, sx * width + kw * dx)))
    for g, i, j, p, q in itertools.product(range(groups), range(h), range(width), range(kh),
                                           range(kw)):
        ins = slice(g * group_in, (g + 1) * group_in)
        canvas[:, g * group_out:(g + 1) * group_out, i * sy + p * dy, j * sx + q * dx] += (
            x[:, ins, i, j] @ w[ins, :, p, q])
    y = canvas[:, :, ph:ph + out_h, pw:pw + out_w]
    return y if b is None else y + b.reshape(1, -1, 1, 1)


CONV_CASES = [
    dict(stride=1, pad=0, cover_all=False, dilate=1, groups=1),
    dict(stride=2, pad=1, cover_all=False, dilate=1, groups=1),
    dict(stride=(2, 3), pad=(0, 2), cover_all=True, dilate=1, groups=1),
    dict(stride=3, pad=1, cover_all=True, dilate=1, groups=2),
    dict(stride=1, pad=2, cover_all=False, dilate=(2, 1), groups=2),
    dict(stride=2, pad=1, cover_all=True, dilate=2, groups=2),
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("nobias", [False, True])
def test_convolution_2d_values_and_gradients_follow_the_definition(case, nobias):
    rng = numpy.random.default_rng(0)
    groups = case["groups"]
    x = chainer.Variable(rng.standard_normal((2, 4, 7, 8)))
    w = chainer.Variable(rng.standard_normal((6, 4 // groups, 3, 2)))
    b = None if nobias else chainer.Variable(rng.standard_normal(6))
    y = convolution_2d(x, w, b, case["stride"], case["pad"], case["cover_all"],
                       dilate=case["dilate"], groups=groups)
    gy = rng.standard_normal(y.shape)
    expected, (gx, gw, gb) = _conv_reference(
        x.array, w.array, None if b is None else b.array, gy, **case)
    assert y.shape == expected.shape and y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-10, atol=1e-12)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(x.grad, gx, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(w.grad, gw, rtol=1e-10, atol=1e-12)
    if b is not None:
        numpy.testing.assert_allclose(b.grad, gb, rtol=1e-10, atol=1e-12)


DECONV_CASES = [
    dict(stride=1, pad=0, outsize=None, dilate=1, groups=1),
    dict(stride=2, pad=1, outsize=None, dilate=1, groups=1),
    dict(stride=(2, 3), pad=(1, 0), outsize=(4, 10), dilate=1, groups=1),
    dict(stride=2, pad=0, outsize=None, dilate=2, groups=2),
    dict(stride=3, pad=1, outsize=(7, 8), dilate=(1, 2), groups=2),
]


@pytest.mark.parametrize("case", DECONV_CASES)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_deconvolution_2d_values_and_gradients_follow_the_definition(case, dtype):
    rng = numpy.random.default_rng(1)
    groups = case["groups"]
    x = chainer.Variable(rng.standard_normal((2, 4, 3, 4)).astype(dtype))
    w = chainer.Variable(rng.standard_normal((4, 6 // groups, 3, 2)).astype(dtype))
    b = chainer.Variable(rng.standard_normal(6).astype(dtype))
    y = deconvolution_2d(x, w, b, case["stride"], case["pad"], case["outsize"],
                         dilate=case["dilate"], groups=groups)
    expected = _deconv_reference(x.array.astype(numpy.float64), w.array.astype(numpy.float64),
                                 b.array.astype(numpy.float64), **case)
    assert y.shape == expected.shape and y.dtype == dtype
    tolerance = dict(rtol=1e-4, atol=1e-5) if dtype == numpy.float32 else dict(rtol=1e-10)
    numpy.testing.assert_allclose(y.array, expected, **tolerance)
    # The deconvolution is the adjoint of the convolution: its x-gradient is a convolution.
    gy = rng.standard_normal(y.shape).astype(dtype)
    y.grad = gy
    y.backward()
    # That convolution needs cover_all where the given outsize is past the default one.
    cover_all = case["outsize"] is not None and any(
        size != conv_utils.get_conv_outsize(out, k, s, p, d=d) for size, out, k, s, p, d in zip(
            x.shape[2:], case["outsize"], w.shape[2:], _pair(case["stride"]),
            _pair(case["pad"]), _pair(case["dilate"])))
    gx_case = dict(case, cover_all=cover_all)
    del gx_case["outsize"]
    _, (_, gw_expected, _) = _conv_reference(
        gy.astype(numpy.float64), w.array.astype(numpy.float64), None,
        x.array.astype(numpy.float64), **gx_case)
    gx_expected, _ = _conv_reference(gy.astype(numpy.float64), w.array.astype(numpy.float64),
                                     None, None, **gx_case)
    assert x.grad.dtype == dtype and w.grad.dtype == dtype
    numpy.testing.assert_allclose(x.grad, gx_expected, **tolerance)
    numpy.testing.assert_allclose(w.grad, gw_expected, **tolerance)
    numpy.testing.assert_allclose(b.grad, gy.sum(axis=(0, 2, 3)), **tolerance)


def test_mixed_precision_output_has_the_inputs_dtype():
    x = numpy.ones((1, 2, 4, 4), numpy.float32)
    assert convolution_2d(x, numpy.ones((3, 2, 2, 2), numpy.float64)).dtype == numpy.float32
    assert deconvolution_2d(x, numpy.ones((2, 3, 2, 2), numpy.float64)).dtype == numpy.float32


@pytest.mark.parametrize("size, k, s, p, cover_all, d", list(
    itertools.product([4, 7], [1, 3], [1, 2], [0, 2], [False, True], [1, 2])))
def test_utils_conv_output_sizes(size, k, s, p, cover_all, d):
    span = (k - 1) * d + 1
    expected = (size + 2 * p - span + (s - 1 if cover_all else 0)) // s + 1
    assert conv_utils.get_conv_outsize(size, k, s, p, cover_all=cover_all, d=d) == expected
    expected = s * (size - 1) + span - 2 * p - (s - 1 if cover_all else 0)
    assert conv_utils.get_deconv_outsize(size, k, s, p, cover_all=cover_all, d=d) == expected


def test_convolution2d_forms_parameters_and_text():
    link = Convolution2D(3, 4, 5, stride=2, pad=(1, 2))
    assert link.W.shape == (4, 3, 5, 5) and link.b.shape == (4,)
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]
    assert (link.stride, link.pad, link.dilate, link.groups) == ((2, 2), (1, 2), (1, 1), 1)
    short = Convolution2D(4, 3)
    assert (short.in_channels, short.out_channels, short.ksize) == (None, 4, 3)
    assert short.W.array is None and short.b.shape == (4,)
    assert str(Convolution2D(None, 3, 2, nobias=True)) == (
        "Convolution2D(in_channels=None, out_channels=3, ksize=2, stride=(1, 1), pad=(0, 0), "
        "nobias=True, dilate=(1, 1), groups=1)")
    assert Convolution2D(4, 6, 3, groups=2).W.shape == (6, 2, 3, 3)


def test_convolution2d_lazy_initialization_reads_the_input_channels():
    rng = numpy.random.default_rng(2)
    link = Convolution2D(None, 6, (3, 2), pad=1, groups=3)
    x = rng.standard_normal((2, 9, 5, 5)).astype(numpy.float32)
    y = link(x)
    assert link.W.shape == (6, 3, 3, 2) and link.in_channels is None
    assert y.shape == (2, 6, 5, 6)
    expected, _ = _conv_reference(x.astype(numpy.float64), link.W.array.astype(numpy.float64),
                                  link.b.array.astype(numpy.float64), None, 1, 1, False, 1, 3)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_deconvolution2d_forms_parameters_and_lazy_initialization():
    link = Deconvolution2D(3, 4, 5, stride=2, outsize=(9, 10))
    assert link.W.shape == (3, 4, 5, 5) and link.b.shape == (4,)
    assert link.outsize == (9, 10) and Deconvolution2D(3, 4, 5).outsize == (None, None)
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]
    lazy = Deconvolution2D(6, 3, stride=2, nobias=True, groups=2)
    assert lazy.W.array is None and lazy.b is None
    x = numpy.random.default_rng(3).standard_normal((1, 4, 3, 3)).astype(numpy.float32)
    y = lazy(x)
    assert lazy.W.shape == (4, 3, 3, 3) and y.shape == (1, 6, 7, 7)
    expected = _deconv_reference(x.astype(numpy.float64), lazy.W.array.astype(numpy.float64),
                                 None, 2, 0, None, 1, 2)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [Convolution2D, Deconvolution2D])
def test_links_refuse_groups_that_do_not_divide_the_channels(make):
    with pytest.raises(ValueError, match="must be divisible by the number of groups"):
        make(3, 4, 3, groups=2)


def test_removed_and_unknown_keyword_arguments():
    x = numpy.zeros((1, 2, 3, 3), numpy.float32)
    w = numpy.zeros((2, 2, 2, 2), numpy.float32)
    for function in (convolution_2d, deconvolution_2d):
        with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
            function(x, w, deterministic=True)
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            function(x, w, use_cudnn=True)
    for make in (Convolution2D, Deconvolution2D):
        with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
            make(2, 3, 3, deterministic=True)
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            make(2, 3, 3, use_cudnn=True)


def test_shape_errors_are_invalid_type():
    x = numpy.zeros((1, 4, 5, 5), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        convolution_2d(x, numpy.zeros((6, 3, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType):
        convolution_2d(x[0], numpy.zeros((6, 4, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType):
        convolution_2d(x, numpy.zeros((6, 4, 3, 3), numpy.float32),
                       numpy.zeros(5, numpy.float32))
    with pytest.raises(type_check.InvalidType):
        deconvolution_2d(x, numpy.zeros((3, 4, 3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType):
        deconvolution_2d(x, numpy.zeros((4, 3, 3, 3), numpy.float32), outsize=(20, 7))
    with pytest.raises(ValueError, match="ilate"):
        convolution_2d(x, numpy.zeros((6, 4, 3, 3), numpy.float32), dilate=0)


def test_an_empty_convolution_output_is_an_assertion_error():
    # Chainer checks the output size with an assert (NOTE [bare asserts]).
    x = numpy.ones((1, 4, 2, 2), numpy.float32)
    w = numpy.ones((6, 4, 3, 3), numpy.float32)
    with pytest.raises(AssertionError):
        convolution_2d(x, w)


def test_a_deconvolution_link_bias_of_the_wrong_shape_is_an_assertion_error():
    with pytest.raises(AssertionError):
        Deconvolution2D(4, 3, 3, initial_bias=numpy.arange(4, dtype=numpy.float32))


@pytest.mark.parametrize("shape, cover_all", [
    ((2, 2, 2, 2), False),  # one output position per image: the window view is contiguous
    ((1, 1, 1, 1), True),
    ((1, 1, 4, 4), False),
])
def test_im2col_cpu_returns_a_new_writable_array(shape, cover_all):
    conv = importlib.import_module(chainer.__name__ + ".utils.conv")
    x = numpy.arange(numpy.prod(shape), dtype=numpy.float32).reshape(shape)
    col = conv.im2col_cpu(x, 2, 2, 2, 2, 0, 0, cover_all=cover_all)
    assert col.flags.writeable and col.flags.c_contiguous
    assert not numpy.shares_memory(col, x)
    col[...] = -1  # callers scatter into it (chainer-segnet's upsampling does)
    assert (x >= 0).all()


def test_im2col_nd_cpu_and_f_im2col_return_new_writable_arrays():
    conv_nd = importlib.import_module(chainer.__name__ + ".utils.conv_nd")
    F = importlib.import_module(chainer.__name__ + ".functions")
    x = numpy.zeros((2, 2, 2, 2, 2), numpy.float32)
    col = conv_nd.im2col_nd_cpu(x, (2, 2, 2), (2, 2, 2), (0, 0, 0))
    assert col.flags.writeable and not numpy.shares_memory(col, x)
    image = numpy.arange(32, dtype=numpy.float32).reshape(2, 4, 2, 2)
    y = F.im2col(image, 1).array
    assert y.flags.writeable and not numpy.shares_memory(y, image)


def test_one_output_channel_above_the_size_limit_rounds_as_chainers_patch_product():
    # A discriminator's last layer: with one output channel BLAS runs a matrix-vector product,
    # rounded by the patches' layout; Chainer multiplies its C-ordered im2col array.
    conv = importlib.import_module(chainer.__name__ + ".utils.conv")
    F = importlib.import_module(chainer.__name__ + ".functions")
    rng = numpy.random.RandomState(3)
    x = rng.standard_normal((2, 16, 128, 128)).astype(numpy.float32)
    w = rng.standard_normal((1, 16, 3, 3)).astype(numpy.float32)
    columns = conv.im2col_cpu(x, 3, 3, 1, 1, 1, 1)
    expected = numpy.rollaxis(numpy.tensordot(columns, w, ((1, 2, 3), (1, 2, 3))), 3, 1)
    numpy.testing.assert_array_equal(F.convolution_2d(x, w, None, 1, 1).array, expected)
