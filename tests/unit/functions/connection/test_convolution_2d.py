"""convolution_2d: forward against a loop-by-loop NumPy reference, gradients against numerical
ones (first and second order), dtypes, argument and shape errors, and chainer.utils.conv."""

from __future__ import annotations

import itertools

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.connection.convolution_2d import (
    Convolution2DFunction,
    Convolution2DGradW,
    convolution_2d,
)
from chainer_compat.utils import conv, type_check

FORWARD_TOLERANCE = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
    numpy.float64: {"atol": 1e-12, "rtol": 1e-10},
}


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _out_length(size, k, s, p, d, cover_all):
    span = (k - 1) * d + 1
    if cover_all:
        return -(-(size + 2 * p - span) // s) + 1  # one more window while pixels are left
    return (size + 2 * p - span) // s + 1


def reference(x, w, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
    """The convolution by definition: one dot product per output channel and pixel."""
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)
    n, c, h, width = x.shape
    out_channels, group_channels, kh, kw = w.shape
    out_h = _out_length(h, kh, sy, ph, dy, cover_all)
    out_w = _out_length(width, kw, sx, pw, dx, cover_all)
    padded = numpy.zeros((n, c, h + 2 * ph + sy, width + 2 * pw + sx))
    padded[:, :, ph:ph + h, pw:pw + width] = x
    y = numpy.zeros((n, out_channels, out_h, out_w))
    per_group = out_channels // groups
    for o, i, j in itertools.product(range(out_channels), range(out_h), range(out_w)):
        g = o // per_group
        window = padded[:, g * group_channels:(g + 1) * group_channels,
                        i * sy:i * sy + (kh - 1) * dy + 1:dy,
                        j * sx:j * sx + (kw - 1) * dx + 1:dx]
        y[:, o, i, j] = (window * w[o]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def _inputs(rng, dtype, x_shape=(2, 4, 5, 6), w_shape=(6, 2, 3, 2), nobias=False):
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    w = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = None if nobias else rng.uniform(-1, 1, w_shape[0]).astype(dtype)
    return x, w, b


GEOMETRIES = [
    dict(),
    dict(stride=2),
    dict(stride=(2, 3), pad=(1, 2)),
    dict(pad=1, cover_all=True),
    dict(stride=3, cover_all=True),
    dict(dilate=2, pad=1),
    dict(dilate=(2, 1), stride=(1, 2)),
    dict(groups=2),
    dict(groups=2, stride=2, pad=1, dilate=2, cover_all=True),
]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_matches_reference(xp, dtype, geometry, nobias):
    rng = numpy.random.default_rng(0)
    groups = geometry.get("groups", 1)
    x, w, b = _inputs(rng, dtype, w_shape=(6, 4 // groups, 3, 2), nobias=nobias)
    args = (xp.asarray(x), xp.asarray(w)) + (() if b is None else (xp.asarray(b),))
    y = convolution_2d(*args, **geometry)
    expected = reference(x.astype(numpy.float64), w.astype(numpy.float64),
                         None if b is None else b.astype(numpy.float64), **geometry)
    assert y.dtype == dtype and type(y.array) is type(args[0])
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(_host(y.array).astype(numpy.float64), expected,
                                  **FORWARD_TOLERANCE[dtype])


def test_forward_accepts_non_contiguous_input():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((5, 4, 6, 2)).transpose(3, 1, 0, 2)  # (2, 4, 5, 6), strided
    w = rng.standard_normal((3, 4, 2, 2))
    y = convolution_2d(x, w, stride=2, pad=1)
    numpy.testing.assert_allclose(y.array, reference(x, w, stride=2, pad=1), rtol=1e-12)


@pytest.mark.parametrize("stride, pad, dilate, groups, cover_all, nobias", list(
    itertools.product([1, 2], [0, 1], [1, 2], [1, 2], [False, True], [False, True])))
def test_gradients_match_numerical_ones(stride, pad, dilate, groups, cover_all, nobias):
    rng = numpy.random.default_rng(2)
    x, w, b = _inputs(rng, numpy.float64, x_shape=(2, 4, 5, 6),
                      w_shape=(4, 4 // groups, 2, 3), nobias=nobias)
    inputs = (x, w) if b is None else (x, w, b)

    def f(*args):
        return convolution_2d(*args, stride=stride, pad=pad, cover_all=cover_all,
                              dilate=dilate, groups=groups)

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
        return convolution_2d(*args, pad=(0, 1), groups=2)

    gy = xp.asarray(rng.uniform(-1, 1, f(*inputs).shape))
    gradient_check.check_backward(f, inputs, gy, atol=1e-7, rtol=1e-6)


def test_gradients_equal_reference_adjoints():
    # The gradient for x is the adjoint of the convolution: <conv(x), gy> = <x, gx>.
    rng = numpy.random.default_rng(4)
    x = chainer_compat.Variable(rng.standard_normal((2, 4, 6, 5)))
    w = chainer_compat.Variable(rng.standard_normal((6, 2, 3, 3)))
    b = chainer_compat.Variable(rng.standard_normal(6))
    y = convolution_2d(x, w, b, stride=2, pad=1, groups=2, cover_all=True)
    gy = rng.standard_normal(y.shape)
    y.grad = gy
    y.backward()
    # Linear in x (and in W), so the inner product identity is exact up to rounding.
    without_bias = reference(x.array, w.array, stride=2, pad=1, groups=2, cover_all=True)
    numpy.testing.assert_allclose((x.grad * x.array).sum(), (without_bias * gy).sum())
    numpy.testing.assert_allclose((w.grad * w.array).sum(), (without_bias * gy).sum())
    numpy.testing.assert_allclose(b.grad, gy.sum(axis=(0, 2, 3)))


def test_mixed_precision_keeps_each_inputs_dtype():
    rng = numpy.random.default_rng(5)
    x = chainer_compat.Variable(rng.standard_normal((1, 2, 4, 4)).astype(numpy.float16))
    w = chainer_compat.Variable(rng.standard_normal((3, 2, 2, 2)).astype(numpy.float32))
    y = convolution_2d(x, w)
    assert y.dtype == numpy.float16
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert x.grad.dtype == numpy.float16 and w.grad.dtype == numpy.float32


def test_backward_retains_x_and_w_but_not_b():
    rng = numpy.random.default_rng(6)
    x = chainer_compat.Variable(rng.standard_normal((1, 2, 4, 4)))
    w = chainer_compat.Variable(rng.standard_normal((3, 2, 2, 2)))
    b = chainer_compat.Variable(rng.standard_normal(3))
    y = convolution_2d(x, w, b)
    assert y.creator.label == "Convolution2DFunction"
    assert x.node.data is not None and w.node.data is not None and b.node.data is None


def test_double_backprop_records_deconvolution_and_weight_gradient_nodes():
    rng = numpy.random.default_rng(7)
    x = chainer_compat.Variable(rng.standard_normal((1, 2, 4, 4)))
    w = chainer_compat.Variable(rng.standard_normal((3, 2, 2, 2)))
    y = convolution_2d(x, w)
    y.grad = rng.standard_normal(y.shape)
    y.backward(enable_double_backprop=True)
    assert x.grad_var.creator.label == "Deconvolution2DFunction"
    assert w.grad_var.creator.label == "Convolution2DGradW"


@pytest.mark.parametrize("x_shape, w_shape, b_shape, groups, match", [
    ((2, 4, 5), (6, 4, 3, 3), None, 1, r"in_types\[0\]\.ndim == 4"),
    ((1, 4, 5, 5), (6, 4, 3), None, 1, r"in_types\[1\]\.ndim == 4"),
    ((1, 4, 5, 5), (6, 3, 3, 3), None, 1, r"in_types\[0\]\.shape\[1\] == in_types\[1\]"),
    ((1, 4, 5, 5), (6, 4, 3, 3), None, 2, r"in_types\[0\]\.shape\[1\] == in_types\[1\]"),
    ((1, 4, 5, 5), (5, 2, 3, 3), None, 2, r"in_types\[1\]\.shape\[0\] % 2 == 0"),
    ((1, 4, 5, 5), (6, 4, 3, 3), (5,), 1, r"in_types\[2\]\.shape\[0\]"),
    ((1, 4, 5, 5), (6, 4, 3, 3), (6, 1), 1, r"in_types\[2\]\.ndim == 1"),
])
def test_mismatched_shapes_raise_invalid_type(x_shape, w_shape, b_shape, groups, match):
    args = [numpy.zeros(x_shape, "f"), numpy.zeros(w_shape, "f")]
    if b_shape is not None:
        args.append(numpy.zeros(b_shape, "f"))
    with pytest.raises(type_check.InvalidType, match=match):
        convolution_2d(*args, groups=groups)


def test_integer_input_and_foreign_bias_dtype_raise_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"in_types\[0\]\.dtype\.kind == f"):
        convolution_2d(numpy.zeros((1, 2, 3, 3), numpy.int32), numpy.zeros((1, 2, 2, 2), "f"))
    with pytest.raises(type_check.InvalidType, match=r"in_types\[2\]\.dtype == in_types\[0\]"):
        convolution_2d(numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((1, 2, 2, 2), "f"),
                       numpy.zeros(1, "d"))


def test_kernel_larger_than_padded_input_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"output size of convolution_2d must be positive"):
        convolution_2d(numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((1, 2, 5, 2), "f"))
    # Padding makes room again.
    assert convolution_2d(numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((1, 2, 5, 2), "f"),
                          pad=1).shape == (1, 1, 1, 4)


@pytest.mark.parametrize("kwargs, match", [
    (dict(dilate=0), r"^Dilate should be positive, but 0 is supplied\.\ndilate must be at "),
    (dict(dilate=(1, -1)), r"^Dilate should be positive, but \(1, -1\) is supplied"),
    (dict(stride=0), r"stride must be positive, got 0"),
    (dict(pad=(0, -1)), r"pad must be non-negative"),
    (dict(groups=0), r"groups must be a positive integer, got 0"),
])
def test_bad_geometry_raises_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        convolution_2d(numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((1, 2, 2, 2), "f"), **kwargs)


def test_removed_keyword_arguments_raise_chainers_errors():
    x, w = numpy.zeros((1, 2, 3, 3), "f"), numpy.zeros((1, 2, 2, 2), "f")
    with pytest.raises(ValueError, match=r"deterministic argument is not supported anymore"):
        convolution_2d(x, w, deterministic=True)
    with pytest.raises(TypeError, match=r"convolution_2d\(\) got unexpected keyword argument"
                                        r"\(s\) 'use_cudnn'"):
        convolution_2d(x, w, use_cudnn=True)
    with pytest.raises(ValueError, match=r"requires_x_grad argument is not supported"):
        Convolution2DFunction(requires_x_grad=True)
    with pytest.raises(RuntimeError, match=r"cudnn_fast must be False"):
        convolution_2d(x, w, cudnn_fast=True)


@pytest.mark.parametrize("size, k, s, p, cover_all, d", list(
    itertools.product([5, 8], [1, 3], [1, 2, 3], [0, 1], [False, True], [1, 2])))
def test_conv_and_deconv_outsize_agree_with_direct_counts(size, k, s, p, cover_all, d):
    assert conv.get_conv_outsize(size, k, s, p, cover_all, d) == _out_length(
        size, k, s, p, d, cover_all)
    out = conv.get_conv_outsize(size, k, s, p, cover_all, d)
    back = conv.get_deconv_outsize(out, k, s, p, cover_all, d)
    # The deconvolution size maps back to `out` under the same convolution.
    assert conv.get_conv_outsize(back, k, s, p, cover_all, d) == out


def test_im2col_and_col2im_are_adjoint():
    rng = numpy.random.default_rng(8)
    img = rng.standard_normal((2, 3, 7, 6))
    col = conv.im2col(img, 3, 2, 2, 1, 1, 0, cover_all=True, dy=1, dx=2)
    assert col.shape == (2, 3, 3, 2, 4, 4) and col.flags.c_contiguous
    col[...] += 0  # a fresh, writeable array, not the strided view
    other = rng.standard_normal(col.shape)
    back = conv.col2im(other, 2, 1, 1, 0, 7, 6, dy=1, dx=2)
    assert back.shape == img.shape
    numpy.testing.assert_allclose((col * other).sum(), (img * back).sum())
    with pytest.raises(RuntimeError, match="output size of im2col must be positive"):
        conv.im2col(img, 9, 2, 1, 1, 0, 0)


def test_im2col_fills_padding_with_pval():
    col = conv.im2col_cpu(numpy.zeros((1, 1, 2, 2)), 3, 3, 1, 1, 1, 1, pval=7)
    numpy.testing.assert_array_equal(col[0, 0, :, :, 0, 0],
                                     [[7, 7, 7], [7, 0, 0], [7, 0, 0]])


def test_empty_batch_gives_empty_output_and_gradient():
    x = chainer_compat.Variable(numpy.zeros((0, 2, 4, 4), "f"))
    y = convolution_2d(x, numpy.ones((3, 2, 1, 1), "f"))
    assert y.shape == (0, 3, 4, 4)
    y.grad = numpy.zeros(y.shape, "f")
    y.backward()
    assert x.grad.shape == (0, 2, 4, 4)


def test_weight_gradient_node_refuses_memory_layouts():
    with pytest.raises(ValueError, match="w_layout must be None"):
        Convolution2DGradW(Convolution2DFunction(), (1, 2, 2, 2), numpy.float32, "NHWC")
