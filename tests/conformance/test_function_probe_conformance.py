"""Corner cases of single functions found apart from Chainer 7.8.1 by running its own unit tests
against chainer_compat: 0-d inputs of pad's double backward and normalize's backward, and
old-style Function classes (Hinge, LSTMGrad, SLSTMGrad, TreeLSTM) called as callables.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
chainer = importlib.import_module(TARGET)
F = importlib.import_module(f"{TARGET}.functions")
gradient_check = importlib.import_module(f"{TARGET}.gradient_check")


def test_pad_of_0d_input_supports_double_backward():
    x = numpy.array(0.75, numpy.float64)
    gy = numpy.array(0.5, numpy.float64)
    ggx = numpy.array(-0.25, numpy.float64)

    def squared_pad(x):
        y = F.pad(x, 1, "constant")
        return y * y

    gradient_check.check_double_backward(squared_pad, x, gy, ggx)


def test_pad_of_0d_input_second_order_grad_matches_reference():
    x = chainer.Variable(numpy.array(1.5, numpy.float32))
    y = F.pad(x, 2, "constant")
    gx, = chainer.grad([y * y], [x], enable_double_backprop=True)
    ggx, = chainer.grad([gx], [x])
    # y == x for a 0-d input, so d(x^2)/dx = 2x and its derivative is 2.
    numpy.testing.assert_allclose(gx.array, 2 * x.array)
    numpy.testing.assert_allclose(ggx.array, 2.0)


def test_normalize_of_0d_input_with_empty_axis_backward_matches_reference():
    eps = 1e-5
    for value in (0.5, -2.0):
        x = chainer.Variable(numpy.array(value, numpy.float64))
        y = F.normalize(x, eps=eps, axis=())
        y.grad = numpy.array(1.0, numpy.float64)
        y.backward()
        # y = x / (|x| + eps), so dy/dx = eps / (|x| + eps) ** 2 away from 0.
        expected = eps / (abs(value) + eps) ** 2
        numpy.testing.assert_allclose(x.grad, expected, rtol=1e-10)


def test_hinge_class_instance_is_callable_like_a_function():
    hinge_module = importlib.import_module(f"{TARGET}.functions.loss.hinge")
    x = numpy.random.RandomState(0).uniform(-1, 1, (3, 4)).astype(numpy.float32)
    t = numpy.array([0, 3, 1], numpy.int32)
    y = hinge_module.Hinge("L2", "no")(x, t)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_allclose(y.array, F.hinge(x, t, "L2", "no").array)


def test_lstm_grad_class_instance_is_callable_and_returns_all_grads():
    lstm_module = importlib.import_module(f"{TARGET}.functions.rnn.lstm")
    random = numpy.random.RandomState(1)
    c_prev, gc, gh = (random.uniform(-1, 1, (3, 2)).astype(numpy.float32) for _ in range(3))
    x = random.uniform(-1, 1, (3, 8)).astype(numpy.float32)
    c_prev_variable, x_variable = chainer.Variable(c_prev), chainer.Variable(x)
    c_next, h = F.lstm(c_prev_variable, x_variable)
    # The reference: the gradients of lstm itself for the same output grads.
    expected = chainer.grad([c_next, h], [c_prev_variable, x_variable], [gc, gh])
    outputs = lstm_module.LSTMGrad()(c_prev, x, c_next.array, gc, gh)
    assert isinstance(outputs, tuple) and len(outputs) == 2
    for actual, wanted in zip(outputs, expected):
        numpy.testing.assert_allclose(actual.array, wanted.array, rtol=1e-5, atol=1e-6)


def test_tree_lstm_and_slstm_grad_class_instances_are_callable():
    tree_module = importlib.import_module(f"{TARGET}.functions.rnn.tree_lstm")
    slstm_module = importlib.import_module(f"{TARGET}.functions.rnn.slstm")
    random = numpy.random.RandomState(2)
    c1, c2, gc, gh = (random.uniform(-1, 1, (3, 2)).astype(numpy.float32) for _ in range(4))
    x10 = random.uniform(-1, 1, (3, 10)).astype(numpy.float32)
    x1, x2 = (random.uniform(-1, 1, (3, 8)).astype(numpy.float32) for _ in range(2))

    cell, hidden = tree_module.TreeLSTM()(c1, c2, x10)
    wanted_cell, wanted_hidden = F.tree_lstm(c1, c2, x10)
    numpy.testing.assert_allclose(cell.array, wanted_cell.array)
    numpy.testing.assert_allclose(hidden.array, wanted_hidden.array)

    inputs = [chainer.Variable(a) for a in (c1, c2, x1, x2)]
    c, h = F.slstm(*inputs)
    wanted = chainer.grad([c, h], inputs, [gc, gh])
    grads = slstm_module.SLSTMGrad()(c1, c2, x1, x2, c.array, gc, gh)
    assert [g.shape for g in grads] == [(3, 2), (3, 2), (3, 8), (3, 8)]
    for actual, expected in zip(grads, wanted):
        numpy.testing.assert_allclose(actual.array, expected.array, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("a_shape", "b_shape"), [((), (2, 4)), ((2, 4), ()), ((), ())])
def test_matmul_refuses_0d_operands(a_shape, b_shape):
    # As numpy.matmul does: a 0-d operand is not a scaling.
    a = chainer.Variable(numpy.ones(a_shape, numpy.float32))
    b = chainer.Variable(numpy.ones(b_shape, numpy.float32))
    invalid_type = importlib.import_module(chainer.__name__ + ".utils.type_check").InvalidType
    with pytest.raises(invalid_type, match="ndim >= 1"):
        chainer.functions.matmul(a, b)
    with pytest.raises(invalid_type, match="ndim >= 1"):
        _ = a @ b


def test_basic_math_is_reachable_from_the_top_level():
    # Chainer's __init__ imports functions.math.basic_math, so `from chainer import basic_math`
    # works in legacy code.
    from_top = importlib.import_module(chainer.__name__).basic_math
    assert from_top is importlib.import_module(chainer.__name__ + ".functions.math.basic_math")


class _Square(chainer.FunctionNode):
    """x ** 2 whose backward wraps its Variable gradient in force_array, as user code does."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return chainer.utils.force_array(inputs[0] ** 2),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return chainer.utils.force_array(2 * x * grad_outputs[0]),


def test_force_array_keeps_a_variable_in_the_graph():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y, = _Square().apply((x,))
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_force_array_converts_scalars_only():
    force_array = chainer.utils.force_array
    zero_d = force_array(numpy.float32(1.5))
    assert type(zero_d) is numpy.ndarray and zero_d.shape == () and zero_d.dtype == numpy.float32
    assert force_array(2.0, numpy.float16).dtype == numpy.float16
    assert force_array(None) is None
    values = [1, 2]
    assert force_array(values) is values
    array = numpy.ones(2, numpy.float32)
    assert force_array(array) is array
    assert force_array(array, numpy.float64).dtype == numpy.float64
