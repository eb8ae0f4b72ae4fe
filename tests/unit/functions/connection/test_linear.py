"""linear: forward against NumPy, gradients against numerical ones, type errors, retention."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import both_ways

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.connection.linear import LinearFunction, linear
from chainer_compat.utils import type_check

TOLERANCE = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
    numpy.float64: {"atol": 1e-12, "rtol": 1e-10},
}


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def _reference(x, w, b, n_batch_axes=1):
    x64 = x.astype(numpy.float64)
    flat = x64.reshape(int(numpy.prod(x.shape[:n_batch_axes])), -1)
    y = flat @ w.astype(numpy.float64).T
    if b is not None:
        y += b
    return y.reshape(x.shape[:n_batch_axes] + (w.shape[0],))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("x_shape", [(3, 4), (3, 2, 2)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_forward_matches_numpy(xp, dtype, x_shape, with_bias):
    rng = numpy.random.default_rng(0)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    w = rng.uniform(-1, 1, (5, 4)).astype(dtype)
    b = rng.uniform(-1, 1, 5).astype(dtype) if with_bias else None
    y = linear(xp.asarray(x), xp.asarray(w), None if b is None else xp.asarray(b))
    assert y.shape == (3, 5) and y.dtype == dtype
    numpy.testing.assert_allclose(_host(y.array), _reference(x, w, b), **TOLERANCE[dtype])


def test_n_batch_axes_keeps_leading_axes():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4))
    w = rng.standard_normal((6, 4))
    b = rng.standard_normal(6)
    y = linear(x, w, b, n_batch_axes=2)
    assert y.shape == (2, 3, 6)
    numpy.testing.assert_allclose(y.array, _reference(x, w, b, n_batch_axes=2))


@pytest.mark.parametrize("n_batch_axes", [1, 2])
@pytest.mark.parametrize("with_bias", [True, False])
def test_backward_matches_numerical_gradient(xp, n_batch_axes, with_bias):
    rng = numpy.random.default_rng(2)
    x = xp.asarray(rng.standard_normal((2, 3, 2)))
    w = xp.asarray(rng.standard_normal((4, 2 if n_batch_axes == 2 else 6)))
    out_shape = (2, 3, 4) if n_batch_axes == 2 else (2, 4)
    gy = xp.asarray(rng.standard_normal(out_shape))
    inputs = (x, w) + ((xp.asarray(rng.standard_normal(4)),) if with_bias else ())

    def f(*args):
        return linear(*args, n_batch_axes=n_batch_axes)

    gradient_check.check_backward(f, inputs, gy)


@pytest.mark.parametrize("with_bias", [True, False])
def test_double_backward_matches_numerical_gradient(with_bias):
    rng = numpy.random.default_rng(3)
    inputs = (rng.standard_normal((3, 4)), rng.standard_normal((2, 4)))
    if with_bias:
        inputs += (rng.standard_normal(2),)
    gy = rng.standard_normal((3, 2))
    grad_grads = tuple(rng.standard_normal(a.shape) for a in inputs)
    gradient_check.check_double_backward(linear, inputs, gy, grad_grads)


def test_gradients_equal_closed_form():
    rng = numpy.random.default_rng(4)
    x = chainer_compat.Variable(rng.standard_normal((3, 4)))
    w = chainer_compat.Variable(rng.standard_normal((2, 4)))
    b = chainer_compat.Variable(rng.standard_normal(2))
    y = linear(x, w, b)
    gy = rng.standard_normal((3, 2))
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(x.grad, gy @ w.array)
    numpy.testing.assert_allclose(w.grad, gy.T @ x.array)
    numpy.testing.assert_allclose(b.grad, gy.sum(axis=0))


def test_mixed_precision_weight_keeps_input_dtype():
    rng = numpy.random.default_rng(5)
    x = chainer_compat.Variable(rng.standard_normal((3, 4)).astype(numpy.float16))
    w = chainer_compat.Variable(rng.standard_normal((2, 4)).astype(numpy.float32))
    y = linear(x, w)
    assert y.dtype == numpy.float16
    y.grad = numpy.ones((3, 2), numpy.float16)
    y.backward()
    assert x.grad.dtype == numpy.float16 and w.grad.dtype == numpy.float32


def test_input_array_gets_no_gradient_and_bias_is_not_retained():
    rng = numpy.random.default_rng(6)
    x = rng.standard_normal((3, 4)).astype(numpy.float32)
    w = chainer_compat.Variable(rng.standard_normal((2, 4)).astype(numpy.float32))
    b = chainer_compat.Variable(numpy.zeros(2, numpy.float32))
    y = linear(x, w, b)
    # Backward needs x and W only.
    assert w.node.data is not None and b.node.data is None
    y.grad = numpy.ones((3, 2), numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(w.grad, numpy.ones((2, 3), numpy.float32) @ x, rtol=1e-6)


def test_mismatched_weight_shape_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"LinearFunction[\s\S]*W\.shape\[1\]"):
        linear(numpy.zeros((3, 4), "f"), numpy.zeros((2, 5), "f"))


def test_integer_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        linear(numpy.zeros((3, 4), numpy.int32), numpy.zeros((2, 4), "f"))


def test_bias_of_other_dtype_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"b\.dtype == x\.dtype"):
        linear(numpy.zeros((3, 4), "f"), numpy.zeros((2, 4), "f"), numpy.zeros(2, "d"))


def test_bias_of_wrong_length_raises_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r"b\.shape\[0\] == W\.shape\[0\]"):
        linear(numpy.zeros((3, 4), "f"), numpy.zeros((2, 4), "f"), numpy.zeros(3, "f"))


def test_non_positive_n_batch_axes_raises_value_error():
    with pytest.raises(ValueError, match="n_batch_axes must be greater than 0, got 0"):
        linear(numpy.zeros((3, 4), "f"), numpy.zeros((2, 4), "f"), n_batch_axes=0)


def test_function_node_class_checks_a_matrix_input():
    # LinearFunction itself takes matrices; linear() flattens for it.
    with pytest.raises(type_check.InvalidType, match=r"x\.ndim == 2"):
        LinearFunction().apply((numpy.zeros((3, 2, 2), "f"), numpy.zeros((2, 4), "f")))


# ------------------------------------------------------------ NOTE [gradients without a node]:
# the gradients computed without nodes must be the nodes' to the bit, and the nodes must still
# run wherever a hook or debug mode can observe them.
def _linear_gradients(x, w, b, x_requires_grad, gy, backward_context):
    x_in = chainer_compat.Variable(x) if x_requires_grad else x
    params = [chainer_compat.Variable(w)] + ([] if b is None else [chainer_compat.Variable(b)])
    y = linear(x_in, *params)
    y.grad_var = gy
    with backward_context:
        y.backward()
    return ([x_in] if x_requires_grad else []) + params


@pytest.mark.parametrize("x_dtype, w_dtype", [
    (numpy.float16, numpy.float16), (numpy.float32, numpy.float32),
    (numpy.float64, numpy.float64), (numpy.float16, numpy.float32)])
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("x_requires_grad", [True, False])
@pytest.mark.parametrize("gy_requires_grad", [True, False])
def test_gradients_without_nodes_are_the_nodes_gradients(xp, x_dtype, w_dtype, with_bias,
                                                         x_requires_grad, gy_requires_grad):
    rng = numpy.random.default_rng(7)
    x = xp.asarray(rng.standard_normal((5, 6)).astype(x_dtype))
    w = xp.asarray(rng.standard_normal((3, 6)).astype(w_dtype))
    b = xp.asarray(rng.standard_normal(3).astype(x_dtype)) if with_bias else None
    gy = chainer_compat.Variable(xp.asarray(rng.standard_normal((5, 3)).astype(x_dtype)),
                                 requires_grad=gy_requires_grad)
    direct, through_nodes, labels = both_ways(
        lambda context: _linear_gradients(x, w, b, x_requires_grad, gy, context))
    for a, b_ in zip(direct, through_nodes):
        assert a.grad_var.creator is None and b_.grad_var.creator is None
        assert a.grad.dtype == b_.grad.dtype and a.grad.shape == b_.grad.shape
        assert a.grad.tobytes() == b_.grad.tobytes()
        assert a.grad_var.requires_grad is b_.grad_var.requires_grad
    expected = (["LinearGradData"] if x_requires_grad else []) + ["LinearGradWeight"]
    expected += ["Sum"] if with_bias else []
    assert labels == expected


def test_gradients_are_recorded_by_nodes_for_double_backprop():
    rng = numpy.random.default_rng(8)
    x = chainer_compat.Variable(rng.standard_normal((3, 4)))
    w = chainer_compat.Variable(rng.standard_normal((2, 4)))
    b = chainer_compat.Variable(rng.standard_normal(2))
    y = linear(x, w, b)
    y.grad = rng.standard_normal((3, 2))
    y.backward(enable_double_backprop=True)
    # As in Chainer, x's and W's gradients go through F.cast, a Cast node each with backprop on.
    assert x.grad_var.creator.label == "Cast"
    assert x.grad_var.creator.inputs[0].creator.label == "LinearGradData"
    assert w.grad_var.creator.label == "Cast"
    assert w.grad_var.creator.inputs[0].creator.label == "LinearGradWeight"
    assert b.grad_var.creator.label == "Sum"


def test_debug_mode_runs_the_gradient_nodes_and_their_nan_check():
    x = chainer_compat.Variable(numpy.ones((2, 3), numpy.float32))
    w = chainer_compat.Variable(numpy.ones((4, 3), numpy.float32))
    y = linear(x, w)
    y.grad = numpy.full((2, 4), numpy.nan, numpy.float32)
    with chainer_compat.using_config("debug", True):
        with pytest.raises(RuntimeError, match="NaN is detected on forward computation of "
                                               "LinearGradData"):
            y.backward()
