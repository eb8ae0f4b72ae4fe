"""lstm: values against a NumPy formula, the gate layout, rows past the batch, gradients of
first, second and third order, and type errors."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.rnn.lstm import LSTM, LSTMGrad, lstm
from chainer_compat.testing.array import assert_allclose
from chainer_compat.utils import type_check

FORWARD_TOLERANCE = {
    numpy.dtype(numpy.float16): {"atol": 5e-3, "rtol": 1e-2},
    numpy.dtype(numpy.float32): {"atol": 1e-6, "rtol": 1e-5},
    numpy.dtype(numpy.float64): {"atol": 1e-12, "rtol": 1e-12},
}
# (rows of c_prev, rows of x, units, trailing axes)
SHAPES = [(3, 3, 2, ()), (4, 2, 3, ()), (3, 0, 2, ()), (2, 2, 2, (3,)), (3, 1, 1, (2, 2))]


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _lstm_reference(c_prev, x):
    """``(c, h)`` with gate ``g`` of unit ``k`` at channel ``4k + g`` of ``x``."""
    batch = len(x)
    a, i, f, o = (x[:, gate::4] for gate in range(4))
    c = c_prev.copy()
    c[:batch] = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    h = _sigmoid(o) * numpy.tanh(c[:batch])
    return c, h


def _uniform(shape, dtype, low=-1.0, high=1.0, xp=numpy):
    return xp.asarray(numpy.random.uniform(low, high, shape).astype(dtype))


def _inputs(shape, dtype, xp=numpy):
    full, batch, units, rest = shape
    c_prev = _uniform((full, units) + rest, dtype, xp=xp)
    x = _uniform((batch, 4 * units) + rest, dtype, low=-2.0, high=2.0, xp=xp)
    return c_prev, x


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_values_match_numpy_formula(shape, dtype):
    c_prev, x = _inputs(shape, dtype)
    c, h = lstm(c_prev, x)
    expected_c, expected_h = _lstm_reference(c_prev.astype(numpy.float64),
                                             x.astype(numpy.float64))
    assert c.dtype == dtype and h.dtype == dtype
    assert c.shape == c_prev.shape
    assert h.shape == (x.shape[0],) + c_prev.shape[1:]
    tolerance = FORWARD_TOLERANCE[numpy.dtype(dtype)]
    assert_allclose(c.array.astype(numpy.float64), expected_c, **tolerance)
    assert_allclose(h.array.astype(numpy.float64), expected_h, **tolerance)


@pytest.mark.parametrize("shape", SHAPES)
def test_first_and_second_order_gradients(shape, xp, check_gradients):
    c_prev, x = _inputs(shape, numpy.float64, xp)
    check_gradients(lstm, (c_prev, x), lstm(c_prev, x))


@pytest.mark.parametrize("output", [0, 1])
def test_gradients_when_one_output_is_unused(output, check_gradients):
    c_prev, x = _inputs((3, 2, 2, ()), numpy.float64)

    def one_output(c_prev, x):
        return lstm(c_prev, x)[output]

    check_gradients(one_output, (c_prev, x), one_output(c_prev, x))


def test_gate_layout_interleaves_the_four_gates_per_unit():
    units = 3
    c_prev = numpy.arange(1, 1 + 2 * units, dtype=numpy.float64).reshape(2, units)
    x = numpy.zeros((2, 4 * units))
    # Unit 1 forgets nothing and takes nothing in; its output gate is fully open.
    x[:, 4 * 1 + 1] = -50.0
    x[:, 4 * 1 + 2] = 50.0
    x[:, 4 * 1 + 3] = 50.0
    c, h = lstm(c_prev, x)
    numpy.testing.assert_allclose(c.array[:, 1], c_prev[:, 1], rtol=1e-12)
    numpy.testing.assert_allclose(h.array[:, 1], numpy.tanh(c_prev[:, 1]), rtol=1e-12)
    # The other units: a = 0 adds nothing, the forget gate is at one half.
    numpy.testing.assert_allclose(c.array[:, [0, 2]], c_prev[:, [0, 2]] / 2, rtol=1e-12)


def test_rows_past_the_batch_carry_over_and_so_do_their_gradients():
    c_prev, x = _inputs((4, 2, 3, ()), numpy.float64)
    c_var = Variable(c_prev)
    c, h = lstm(c_var, x)
    numpy.testing.assert_array_equal(c.array[2:], c_prev[2:])
    gc = numpy.random.uniform(-1, 1, c.shape)
    c.grad = gc
    h.grad = numpy.zeros(h.shape)
    c.backward()
    numpy.testing.assert_array_equal(c_var.grad[2:], gc[2:])


def test_nodeless_backward_matches_the_gradient_node():
    c_prev, x = _inputs((3, 2, 2, ()), numpy.float32)
    gc = numpy.random.uniform(-1, 1, c_prev.shape).astype(numpy.float32)
    gh = numpy.random.uniform(-1, 1, (2, 2)).astype(numpy.float32)
    results = []
    for double in (False, True):
        c_var, x_var = Variable(c_prev), Variable(x)
        c, h = lstm(c_var, x_var)
        grads = chainer_compat.grad([c, h], [c_var, x_var], [Variable(gc), Variable(gh)],
                                    enable_double_backprop=double)
        assert (grads[1].creator is not None) == double
        results.append([g.array for g in grads])
    for nodeless, with_node in zip(*results):
        numpy.testing.assert_allclose(nodeless, with_node, rtol=1e-6, atol=1e-7)


def test_double_backprop_goes_through_lstm_grad():
    c_prev, x = _inputs((2, 2, 2, ()), numpy.float64)
    x_var = Variable(x)
    _, h = lstm(c_prev, x_var)
    gx, = chainer_compat.grad([h], [x_var], [Variable(numpy.ones(h.shape))],
                              enable_double_backprop=True)
    assert isinstance(gx.creator, LSTMGrad)


def test_third_order_gradients():
    c_prev, x = _inputs((3, 2, 2, ()), numpy.float64)
    gh = numpy.random.uniform(-1, 1, (2, 2))

    def input_grads(c_prev, x):
        _, h = lstm(c_prev, x)
        return tuple(chainer_compat.grad([h], [c_prev, x], [Variable(gh)],
                                         enable_double_backprop=True))

    outputs = input_grads(Variable(c_prev), Variable(x))
    grad_outputs = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    grad_grads = tuple(numpy.random.uniform(-1, 1, a.shape) for a in (c_prev, x))
    gradient_check.check_double_backward(input_grads, (c_prev, x), grad_outputs, grad_grads,
                                         dtype=numpy.float64, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("c_shape, x_shape, x_dtype", [
    ((2, 3), (2, 11), numpy.float32),  # x's channels are not 4 per unit
    ((2, 3), (3, 12), numpy.float32),  # x has more rows than c
    ((2, 3), (2, 12), numpy.float64),  # dtypes differ
    ((2, 3, 4), (2, 12), numpy.float32),  # ranks differ
    ((2, 3, 4), (2, 12, 5), numpy.float32),  # trailing axes differ
    ((3,), (12,), numpy.float32),  # no unit axis
])
def test_mismatched_inputs_are_rejected(c_shape, x_shape, x_dtype):
    c_prev = numpy.zeros(c_shape, numpy.float32)
    x = numpy.zeros(x_shape, x_dtype)
    with pytest.raises(type_check.InvalidType, match=r"LSTM"):
        lstm(c_prev, x)


def test_integer_inputs_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"c\.dtype"):
        lstm(numpy.zeros((2, 3), numpy.int32), numpy.zeros((2, 12), numpy.int32))


def test_classes_live_at_chainers_module_path():
    assert LSTM.__module__ == "chainer_compat.functions.rnn.lstm"
    assert lstm.__module__ == "chainer_compat.functions.rnn.lstm"


def _grads_of_a_loss(c_prev, x):
    c_var, x_var = Variable(c_prev), Variable(x)
    c, h = lstm(c_var, x_var)
    loss = chainer_compat.functions.sum(c) + chainer_compat.functions.sum(h * h)
    loss.backward()
    return c, h, c_var.grad, x_var.grad


def test_same_results_on_every_array_module(xp):
    c_prev, x = _inputs((3, 2, 2, ()), numpy.float32, xp)
    c, h, gc_prev, gx = _grads_of_a_loss(c_prev, x)
    assert type(c.array) is type(c_prev) and type(gx) is type(x)
    host = [_to_numpy(a) for a in (c_prev, x)]
    expected_c, expected_h = _lstm_reference(*(a.astype(numpy.float64) for a in host))
    _, _, expected_gc_prev, expected_gx = _grads_of_a_loss(*host)
    assert_allclose(_to_numpy(c.array), expected_c, atol=1e-6, rtol=1e-5)
    assert_allclose(_to_numpy(h.array), expected_h, atol=1e-6, rtol=1e-5)
    assert_allclose(_to_numpy(gc_prev), expected_gc_prev, atol=1e-6, rtol=1e-5)
    assert_allclose(_to_numpy(gx), expected_gx, atol=1e-6, rtol=1e-5)


def _to_numpy(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)
