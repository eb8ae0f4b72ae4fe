"""deconvolution_2d: forward against a scatter-by-loops NumPy reference, gradients against
numerical ones (first and second order), outsize handling, dtypes, and argument errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.connection.convolution_2d import convolution_2d
from chainer_compat.functions.connection.deconvolution_2d import (
    Deconvolution2DFunction,
    deconvolution_2d,
)
from chainer_compat.utils import type_check

FORWARD_TOLERANCE = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
    numpy.float64: {"atol": 1e-12, "rtol": 1e-10},
}


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def reference(x, w, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    """The deconvolution by definition: every input pixel adds its weighted filter taps."""
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
        contribution = x[:, g * group_in:(g + 1) * group_in, i, j] @ w[
            g * group_in:(g + 1) * group_in, :, p, q]
        canvas[:, g * group_out:(g + 1) * group_out, i * sy + p * dy, j * sx + q * dx] += (
            contribution)
    y = canvas[:, :, ph:ph + out_h, pw:pw + out_w]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def _inputs(rng, dtype, x_shape=(2, 4, 3, 4), w_shape=(4, 3, 3, 2), groups=1, nobias=False):
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    w = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, w_shape[1] * groups).astype(dtype)
    return x, w, b


GEOMETRIES = [
    dict(),
    dict(stride=2),
    dict(stride=(2, 3), pad=(1, 0)),
    dict(stride=2, outsize=(8, 8)),
    dict(stride=3, pad=1, outsize=(7, None)),
    dict(dilate=2, pad=1),
    dict(dilate=(1, 2), stride=(2, 1)),
    dict(groups=2),
    dict(groups=2, stride=2, pad=1, dilate=2),
]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_matches_reference(xp, dtype, geometry, nobias):
    rng = numpy.random.default_rng(0)
    groups = geometry.get("groups", 1)
    x, w, b = _inputs(rng, dtype, groups=groups, nobias=nobias)
    args = (xp.asarray(x), xp.asarray(w)) + (() if b is None else (xp.asarray(b),))
    y = deconvolution_2d(*args, **geometry)
    outsize = geometry.get("outsize")
    if outsize is not None and None in outsize:
        outsize = (outsize[0], y.shape[3])  # the None entry is computed
    expected = reference(x.astype(numpy.float64), w.astype(numpy.float64),
                         None if b is None else b.astype(numpy.float64),
                         **dict(geometry, outsize=outsize))
    assert y.dtype == dtype and type(y.array) is type(args[0])
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(_host(y.array).astype(numpy.float64), expected,
                                  **FORWARD_TOLERANCE[dtype])


@pytest.mark.parametrize("stride, pad, dilate, groups, cover_all, nobias", list(
    itertools.product([1, 2], [0, 1], [1, 2], [1, 2], [False, True], [False, True])))
def test_gradients_match_numerical_ones(stride, pad, dilate, groups, cover_all, nobias):
    rng = numpy.random.default_rng(2)
    x, w, b = _inputs(rng, numpy.float64, x_shape=(2, 4, 3, 4), w_shape=(4, 4 // groups, 2, 3),
                      groups=groups, nobias=nobias)
    inputs = (x, w) if b is None else (x, w, b)
    outsize = None
    if cover_all and stride > 1:
        # One less than the default: a size only a cover_all convolution maps back to x's.
        base = deconvolution_2d(x, w, stride=stride, pad=pad, dilate=dilate, groups=groups)
        outsize = (base.shape[2] - 1, base.shape[3] - 1)

    def f(*args):
        return deconvolution_2d(*args, stride=stride, pad=pad, outsize=outsize, dilate=dilate,
                                groups=groups)

    y = f(*inputs)
    gy = rng.uniform(-1, 1, y.shape)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_backward(f, inputs, gy, atol=1e-7, rtol=1e-6)
    gradient_check.check_double_backward(f, inputs, gy, grad_grads, atol=1e-7, rtol=1e-6)


def test_backward_on_device(xp):
    rng = numpy.random.default_rng(3)
    x, w, b = _inputs(rng, numpy.float64)
    inputs = tuple(xp.asarray(a) for a in (x, w, b))

    def f(*args):
        return deconvolution_2d(*args, stride=2, pad=(1, 0))

    gy = xp.asarray(rng.uniform(-1, 1, f(*inputs).shape))
    gradient_check.check_backward(f, inputs, gy, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("geometry", [
    dict(stride=2, pad=1), dict(stride=3, cover_all=True), dict(groups=2, dilate=2, pad=1)])
def test_is_the_adjoint_of_convolution(geometry):
    # <conv(x, W), z> == <x, deconv(z, W)> for any z of conv's output shape.
    rng = numpy.random.default_rng(4)
    x = rng.standard_normal((2, 4, 7, 8))
    w = rng.standard_normal((6, 4 // geometry.get("groups", 1), 3, 2))
    y = convolution_2d(x, w, **geometry).array
    z = rng.standard_normal(y.shape)
    deconv_geometry = {k: v for k, v in geometry.items() if k != "cover_all"}
    back = deconvolution_2d(z, w, outsize=x.shape[2:], **deconv_geometry).array
    assert back.shape == x.shape
    numpy.testing.assert_allclose((y * z).sum(), (x * back).sum())


def test_forward_sets_output_size_and_cover_all():
    x, w = numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((2, 1, 3, 3), "f")
    node = Deconvolution2DFunction(stride=2)
    assert node.cover_all is None
    y, = node.apply((x, w))
    assert (node.outh, node.outw) == y.shape[2:] == (7, 7) and node.cover_all is False
    node = Deconvolution2DFunction(stride=2, outsize=(6, 7))
    node.apply((x, w))
    assert node.cover_all is True


def test_mixed_precision_keeps_each_inputs_dtype():
    rng = numpy.random.default_rng(5)
    x = chainer_compat.Variable(rng.standard_normal((1, 2, 3, 3)).astype(numpy.float16))
    w = chainer_compat.Variable(rng.standard_normal((2, 3, 2, 2)).astype(numpy.float32))
    y = deconvolution_2d(x, w, stride=2)
    assert y.dtype == numpy.float16
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert x.grad.dtype == numpy.float16 and w.grad.dtype == numpy.float32


def test_double_backprop_records_convolution_and_weight_gradient_nodes():
    rng = numpy.random.default_rng(6)
    x = chainer_compat.Variable(rng.standard_normal((1, 2, 3, 3)))
    w = chainer_compat.Variable(rng.standard_normal((2, 3, 2, 2)))
    b = chainer_compat.Variable(rng.standard_normal(3))
    y = deconvolution_2d(x, w, b)
    assert b.node.data is None  # backward needs x and W only
    gy = rng.standard_normal(y.shape)
    y.grad = gy
    y.backward(enable_double_backprop=True)
    assert x.grad_var.creator.label == "Convolution2DFunction"
    assert w.grad_var.creator.label == "Convolution2DGradW"
    numpy.testing.assert_allclose(b.grad, gy.sum(axis=(0, 2, 3)))


@pytest.mark.parametrize("x_shape, w_shape, b_shape, kwargs, match", [
    ((2, 4, 5), (4, 3, 3, 3), None, {}, r"in_types\[0\]\.ndim == 4"),
    ((1, 4, 5, 5), (3, 3, 3, 3), None, {}, r"in_types\[0\]\.shape\[1\] == in_types\[1\]"),
    ((1, 3, 5, 5), (3, 3, 3, 3), None, dict(groups=2), r"in_types\[0\]\.shape\[1\] % 2"),
    ((1, 4, 5, 5), (4, 3, 3, 3), (3, 1), {}, r"in_types\[2\]\.ndim == 1"),
    ((1, 4, 5, 5), (4, 3, 3, 3), None, dict(outsize=(20, 7)), r"in_types\[0\]\.shape\[2\]"),
    ((1, 4, 5, 5), (4, 3, 3, 3), None, dict(outsize=(7, 3)), r"in_types\[0\]\.shape\[3\]"),
])
def test_mismatched_shapes_raise_invalid_type(x_shape, w_shape, b_shape, kwargs, match):
    args = [numpy.zeros(x_shape, "f"), numpy.zeros(w_shape, "f")]
    if b_shape is not None:
        args.append(numpy.zeros(b_shape, "f"))
    with pytest.raises(type_check.InvalidType, match=match):
        deconvolution_2d(*args, **kwargs)


def test_bias_of_other_length_raises_invalid_type():
    # Compat: Chainer checks no length and broadcasts a one-element bias; the documented
    # shape is (c_O,), which is enforced here.
    with pytest.raises(type_check.InvalidType, match=r"in_types\[2\]\.shape\[0\]"):
        deconvolution_2d(numpy.zeros((1, 4, 5, 5), "f"), numpy.zeros((4, 3, 3, 3), "f"),
                         numpy.zeros(1, "f"))


def test_padding_that_leaves_no_output_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"output size of deconvolution_2d must be positive"):
        deconvolution_2d(numpy.zeros((1, 2, 1, 1), "f"), numpy.zeros((2, 1, 2, 2), "f"), pad=1)


def test_removed_keyword_arguments_raise_chainers_errors():
    x, w = numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((2, 1, 2, 2), "f")
    with pytest.raises(ValueError, match=r"deterministic argument is not supported anymore"):
        deconvolution_2d(x, w, deterministic=True)
    with pytest.raises(TypeError, match=r"deconvolution_2d\(\) got unexpected keyword argument"
                                        r"\(s\) 'use_cudnn'"):
        deconvolution_2d(x, w, use_cudnn=True)
    with pytest.raises(ValueError, match=r"requires_x_grad argument is not supported"):
        Deconvolution2DFunction(requires_x_grad=True)
    with pytest.raises(ValueError, match=r"^Dilate should be positive, but 0 is supplied\."):
        deconvolution_2d(x, w, dilate=0)


def test_outsize_needing_cover_all_on_one_axis_only_has_exact_gradients():
    # Compat: Chainer 7.8.1 returns a gradient of the wrong shape here (one cover_all flag
    # for both axes); the gradients must match numerical ones instead.
    rng = numpy.random.default_rng(7)
    x, w, b = _inputs(rng, numpy.float64, x_shape=(2, 4, 3, 4), w_shape=(4, 3, 3, 2))

    def f(*args):
        return deconvolution_2d(*args, stride=(2, 3), pad=(1, 0), outsize=(6, 10))

    y = f(x, w, b)
    numpy.testing.assert_allclose(
        y.array, reference(x, w, b, stride=(2, 3), pad=(1, 0), outsize=(6, 10)))
    gy = rng.uniform(-1, 1, y.shape)
    grad_grads = tuple(rng.uniform(-1, 1, a.shape) for a in (x, w, b))
    gradient_check.check_backward(f, (x, w, b), gy, atol=1e-7, rtol=1e-6)
    gradient_check.check_double_backward(f, (x, w, b), gy, grad_grads, atol=1e-7, rtol=1e-6)
