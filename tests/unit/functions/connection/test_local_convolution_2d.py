"""Tests for chainer_compat.functions.connection.local_convolution_2d: values against a NumPy
loop, gradients of first and second order, strides, dtypes, errors and devices."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.local_convolution_2d import local_convolution_2d
from chainer_compat.utils import type_check


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(3)


def _rand(*shape, dtype=numpy.float64):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _reference(x, W, b, stride):
    sy, sx = stride
    out_c, out_h, out_w, _, kh, kw = W.shape
    y = numpy.zeros((x.shape[0], out_c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            window = x[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", window, W[:, i, j])
    return y if b is None else y + b[None]


CASES = [((1, 1), (5, 5), (3, 3)), ((2, 1), (6, 5), (2, 3)), ((1, 3), (4, 7), (1, 2))]


def _case(stride, in_size, ksize):
    out_h = (in_size[0] - ksize[0]) // stride[0] + 1
    out_w = (in_size[1] - ksize[1]) // stride[1] + 1
    x = _rand(2, 3, *in_size)
    W = _rand(2, out_h, out_w, 3, *ksize)
    b = _rand(2, out_h, out_w)
    return x, W, b


@pytest.mark.parametrize("stride, in_size, ksize", CASES)
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_matches_numpy_loop(xp, stride, in_size, ksize, nobias):
    x, W, b = _case(stride, in_size, ksize)
    bias = None if nobias else xp.asarray(b)
    y = local_convolution_2d(xp.asarray(x), xp.asarray(W), bias, stride)
    result = y.array.get() if hasattr(y.array, "get") else y.array
    numpy.testing.assert_allclose(result, _reference(x, W, None if nobias else b, stride),
                                  rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("stride, in_size, ksize", CASES)
def test_gradients_of_first_and_second_order(stride, in_size, ksize):
    x, W, b = _case(stride, in_size, ksize)
    gy = _rand(2, *W.shape[:3])

    def function(x, W, b):
        return local_convolution_2d(x, W, b, stride)

    gradient_check.check_backward(function, (x, W, b), gy, dtype=numpy.float64,
                                  atol=1e-7, rtol=1e-6)
    grad_grads = (_rand(*x.shape), _rand(*W.shape), _rand(*b.shape))
    gradient_check.check_double_backward(function, (x, W, b), gy, grad_grads,
                                         dtype=numpy.float64, atol=1e-7, rtol=1e-6)


def test_gradient_without_bias_and_with_an_oversized_input():
    # Rows and columns past the last window get zero gradient.
    x, W, _ = _case((1, 1), (6, 6), (3, 3))
    W = W[:, :2, :2]
    gy = _rand(2, 2, 2, 2)
    gradient_check.check_backward(local_convolution_2d, (x, W), gy, dtype=numpy.float64,
                                  atol=1e-7, rtol=1e-6)


def test_float32_input_with_float64_filters_keeps_input_dtype():
    x, W, b = _case((1, 1), (5, 5), (3, 3))
    y = local_convolution_2d(x.astype(numpy.float32), W, b.astype(numpy.float32))
    assert y.dtype == numpy.float32


def test_too_small_input_raises_value_error_naming_the_size():
    _, W, _ = _case((1, 1), (5, 5), (3, 3))
    with pytest.raises(ValueError, match="x must be at least 5x5"):
        local_convolution_2d(_rand(2, 3, 4, 5), W)


@pytest.mark.parametrize("x_shape, w_shape, b_shape", [
    ((2, 3, 5, 5), (2, 3, 3, 3, 3), None),       # W is not 6-D
    ((2, 3, 5), (2, 3, 3, 3, 3, 3), None),       # x is not 4-D
    ((2, 3, 5, 5), (2, 3, 3, 3, 3, 3), (2, 3)),  # bias shape
])
def test_bad_shapes_raise_invalid_type(x_shape, w_shape, b_shape):
    b = None if b_shape is None else _rand(*b_shape)
    with pytest.raises(type_check.InvalidType):
        local_convolution_2d(_rand(*x_shape), _rand(*w_shape), b)


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType):
        local_convolution_2d(numpy.zeros((1, 3, 5, 5), numpy.int32), _rand(2, 3, 3, 3, 3, 3))
