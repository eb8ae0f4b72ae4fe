"""swish: values for several beta shapes, gradients of first and second order (rounded and
applied as in Chainer), checks."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder, first_gradient_node

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.activation.swish import swish
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# (x shape, beta shape)
SHAPES = [((3, 4), (4,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)), ((3, 2), ())]


def _reference(x, beta):
    b = beta.reshape((1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1))
    return x / (1 + numpy.exp(-b * x))


@pytest.mark.parametrize("x_shape, beta_shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, beta_shape, dtype, uniform, check_function):
    x = uniform(x_shape, dtype, low=-2.0, high=2.0)
    beta = uniform(beta_shape, dtype, low=0.5, high=2.0)
    check_function(swish, (x, beta), _reference)


def test_zero_beta_halves_the_input():
    x = numpy.array([[-2.0, 4.0]], numpy.float32)
    numpy.testing.assert_allclose(swish(x, numpy.zeros(2, numpy.float32)).array, x / 2)


def test_beta_of_wrong_shape_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Swish \(Forward\)[\s\S]*beta\.shape"):
        swish(numpy.ones((2, 3), numpy.float32), numpy.ones(4, numpy.float32))


def test_beta_of_other_dtype_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"beta\.dtype == x\.dtype"):
        swish(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float64))


def _double_backward_in_chainers_order(x, beta, gy, ggx, gg_beta):
    """SwishGrad's gradients for (x, beta, gy), one NumPy step for each of Chainer 7.8.1's
    differentiable operations, in its order (NOTE [Swish double backward])."""
    dtype = x.dtype.type
    extended = (1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1)
    axes = (0,) + tuple(range(1 + beta.ndim, x.ndim))
    beta = numpy.broadcast_to(beta.reshape(extended), x.shape)
    gg_beta = numpy.broadcast_to(gg_beta.reshape(extended), x.shape)
    half = dtype(0.5)
    s = numpy.tanh(beta * x * half) * half + half  # Chainer's sigmoid
    y = x * s
    by = beta * y
    one_minus_s = dtype(1) - s
    s_one_minus_by = s * (dtype(1) - by)
    y_x_minus_y = y * (x - y)
    x_minus_2y = x - y * dtype(2)
    common = gy * y * (beta * x_minus_2y + dtype(2)) * one_minus_s
    gx = (ggx * gy * beta * one_minus_s * (by + s_one_minus_by * dtype(2))
          + gg_beta * common)
    g_beta = (ggx * common + gg_beta * gy * y_x_minus_y * x_minus_2y).sum(axis=axes)
    g_gy = ggx * (by + s_one_minus_by) + gg_beta * y_x_minus_y
    return gx, g_beta, g_gy


@pytest.mark.parametrize("x_shape, beta_shape", SHAPES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_second_order_gradients_round_as_chainers(x_shape, beta_shape, dtype):
    rng = numpy.random.default_rng(11)
    x, gy, ggx = (rng.uniform(-2, 2, x_shape).astype(dtype) for _ in range(3))
    beta, gg_beta = (rng.uniform(-2, 2, beta_shape).astype(dtype) for _ in range(2))
    node = first_gradient_node(swish, (x, beta), gy)
    grads = node.backward((0, 1, 2), (Variable(ggx), Variable(gg_beta)))
    expected = _double_backward_in_chainers_order(x, beta, gy, ggx, gg_beta)
    for grad, want in zip(grads, expected):
        assert grad.dtype == want.dtype
        assert grad.array.tobytes() == numpy.asarray(want).tobytes()


def test_double_backward_applies_chainers_nodes_in_its_order():
    rng = numpy.random.default_rng(12)
    x, gy, ggx = (rng.uniform(-2, 2, (2, 3)).astype(numpy.float32) for _ in range(3))
    beta, gg_beta = (rng.uniform(-2, 2, 3).astype(numpy.float32) for _ in range(2))
    node = first_gradient_node(swish, (x, beta), gy)
    with chainer_compat.no_backprop_mode(), LabelRecorder() as recorder:
        node.backward((0, 1, 2), (Variable(ggx), Variable(gg_beta)))
    # Chainer 7.8.1's SwishGrad.backward, expression by expression.
    expected = (["Reshape", "BroadcastTo"] * 2                    # beta, ggbeta
                + ["_ * _", "Sigmoid", "_ * _", "_ * _"]          # s, y, by
                + ["1 - _", "1 - _", "_ * _"]                     # 1 - s, s (1 - by)
                + ["_ - _", "_ * _", "_ * 2", "_ - _"]            # y (x - y), x - 2y
                + ["_ * _", "_ * _", "_ + 2", "_ * _", "_ * _"]   # common
                + ["_ * _"] * 3 + ["_ * 2", "_ + _", "_ * _", "_ * _", "_ + _"]  # gx
                + ["_ * _", "_ * _", "_ * _", "_ * _", "_ + _", "Sum"]   # gbeta
                + ["_ + _", "_ * _", "_ * _", "_ + _"])            # ggy
    assert recorder.labels == expected
