"""prelu: values for several W shapes, gradients of x and W (the second order as Chainer
applies and rounds it), type checks."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder, first_gradient_node

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.activation.prelu import PReLUFunction, prelu
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [((3, 4), (4,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4)), ((3, 2), ())]


def _reference(x, w):
    slopes = w.reshape((1,) + w.shape + (1,) * (x.ndim - w.ndim - 1))
    return numpy.where(x >= 0, x, slopes * x)


@pytest.mark.parametrize("x_shape, w_shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(x_shape, w_shape, dtype, uniform, check_function):
    x = uniform(x_shape, dtype, gap=0.1)
    w = uniform(w_shape, dtype, low=0.1, high=0.5)
    check_function(prelu, (x, w), _reference)


def test_w_of_wrong_shape_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"PReLUFunction \(Forward\)[\s\S]*W"):
        prelu(numpy.ones((2, 3), numpy.float32), numpy.ones(4, numpy.float32))


def test_w_of_other_dtype_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"W\.dtype == x\.dtype"):
        PReLUFunction().apply((numpy.ones((2, 3), numpy.float32), numpy.ones(3)))


def _double_backward_in_chainers_order(x, w, gy, ggx, ggw):
    """PReLUFunctionGrad's gradients for (x, W, gy) as Chainer 7.8.1 computes them: ggW
    masked to the negative side, and the same node applied to (gy, W, ggx)."""
    extended = (1,) + w.shape + (1,) * (x.ndim - w.ndim - 1)
    axes = (0,) + tuple(range(1 + w.ndim, x.ndim))
    kept = x >= 0
    ggw = numpy.broadcast_to(ggw.reshape(extended), x.shape) * (x < 0).astype(x.dtype)
    ggx_gy = numpy.where(kept, ggx, ggx * w.reshape(extended))
    ggx_w = numpy.where(kept, x.dtype.type(0), gy * ggx)
    return gy * ggw, ggx_w.sum(axis=axes), x * ggw + ggx_gy


@pytest.mark.parametrize("x_shape, w_shape", SHAPES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_second_order_gradients_are_chainers(x_shape, w_shape, dtype):
    rng = numpy.random.default_rng(13)
    x, gy, ggx = (rng.uniform(-2, 2, x_shape).astype(dtype) for _ in range(3))
    w, ggw = (rng.uniform(-2, 2, w_shape).astype(dtype) for _ in range(2))
    node = first_gradient_node(prelu, (x, w), gy)
    grads = node.backward((0, 1, 2), (Variable(ggx), Variable(ggw)))
    for grad, want in zip(grads, _double_backward_in_chainers_order(x, w, gy, ggx, ggw)):
        assert grad.dtype == want.dtype
        assert grad.array.tobytes() == numpy.asarray(want).tobytes()


def test_an_infinite_slope_leaves_the_positive_side_finite():
    # Chainer picks ggx on the positive side (a where), so an infinite slope there is unused.
    x = numpy.array([[1.0, -1.0]], numpy.float32)
    w = numpy.array([numpy.inf, 2.0], numpy.float32)
    node = first_gradient_node(prelu, (x, w), numpy.ones_like(x))
    _, _, g_gy = node.backward((0, 1, 2), (Variable(numpy.ones_like(x)),
                                           Variable(numpy.ones_like(w))))
    assert numpy.isfinite(g_gy.array).all()


def test_double_backward_applies_the_gradient_node_again():
    rng = numpy.random.default_rng(14)
    x, gy, ggx = (rng.uniform(-2, 2, (2, 3)).astype(numpy.float32) for _ in range(3))
    w, ggw = (rng.uniform(-2, 2, 3).astype(numpy.float32) for _ in range(2))
    node = first_gradient_node(prelu, (x, w), gy)
    with chainer_compat.no_backprop_mode(), LabelRecorder() as recorder:
        node.backward((0, 1, 2), (Variable(ggx), Variable(ggw)))
    # Chainer 7.8.1: ggW broadcast and masked, PReLUFunctionGrad on (gy, W, ggx), then the
    # gradients of x (gy ggW), of W (a Sum) and of gy (x ggW plus the node's first output).
    assert recorder.labels == ["Reshape", "BroadcastTo", "_ * _", "PReLUFunctionGrad",
                               "_ * _", "Sum", "_ * _", "_ + _"]
