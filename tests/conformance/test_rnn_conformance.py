"""Chainer-visible behaviour of the recurrent pieces: F.lstm and F.slstm (gate layout, rows past
the batch, gradients of first and second order, type errors) and the links LSTM, StatelessLSTM,
StatefulGRU, StatelessGRU, GRU and StatefulPeepholeLSTM (parameter names, initial values, steps
against NumPy formulas on the link's own parameters, state handling, saved names, exception
types). Each case was checked against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to
run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")
serializers = importlib.import_module(chainer.__name__ + ".serializers")
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
lstm = importlib.import_module(chainer.__name__ + ".functions.rnn.lstm").lstm
slstm = importlib.import_module(chainer.__name__ + ".functions.rnn.slstm").slstm
_lstm_links = importlib.import_module(chainer.__name__ + ".links.rnn.lstm")
_gru_links = importlib.import_module(chainer.__name__ + ".links.rnn.gru")
_peephole_links = importlib.import_module(chainer.__name__ + ".links.rnn.peephole")
LSTM = _lstm_links.LSTM
StatelessLSTM = _lstm_links.StatelessLSTM
StatefulGRU = _gru_links.StatefulGRU
StatelessGRU = _gru_links.StatelessGRU
GRU = _gru_links.GRU
StatefulPeepholeLSTM = _peephole_links.StatefulPeepholeLSTM

TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(4)


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _gates(x):
    """Gate ``g`` of every unit: channels ``g, g + 4, g + 8, ...`` of ``x``'s second axis."""
    return tuple(x[:, gate::4] for gate in range(4))


def _lstm_reference(c_prev, x):
    batch = len(x)
    a, i, f, o = _gates(x)
    c = c_prev.copy()
    c[:batch] = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    return c, _sigmoid(o) * numpy.tanh(c[:batch])


def _rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _affine(child, v):
    out = v @ child.W.array.T.astype(numpy.float64)
    return out if child.b is None else out + child.b.array


# ----------------------------------------------------------------------------- F.lstm
@pytest.mark.parametrize("rows, batch", [(3, 3), (4, 2), (2, 0)])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_lstm_values_and_rows_past_the_batch(rows, batch, dtype):
    c_prev, x = _rand(rows, 3, dtype=dtype), _rand(batch, 12, dtype=dtype)
    c, h = lstm(c_prev, x)
    expected_c, expected_h = _lstm_reference(c_prev.astype(numpy.float64),
                                             x.astype(numpy.float64))
    assert c.dtype == h.dtype == dtype
    assert c.shape == (rows, 3) and h.shape == (batch, 3)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)
    numpy.testing.assert_array_equal(c.array[batch:], c_prev[batch:])


def test_lstm_trailing_axes_ride_along():
    c_prev, x = _rand(2, 2, 3, dtype=numpy.float64), _rand(2, 8, 3, dtype=numpy.float64)
    c, h = lstm(c_prev, x)
    expected_c, expected_h = _lstm_reference(c_prev, x)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)


@pytest.mark.parametrize("rows, batch", [(3, 3), (4, 2)])
def test_lstm_first_and_second_order_gradients(rows, batch):
    c_prev, x = _rand(rows, 2, dtype=numpy.float64), _rand(batch, 8, dtype=numpy.float64)
    grads = (_rand(rows, 2, dtype=numpy.float64), _rand(batch, 2, dtype=numpy.float64))
    grad_grads = (_rand(rows, 2, dtype=numpy.float64), _rand(batch, 8, dtype=numpy.float64))
    gradient_check.check_backward(lstm, (c_prev, x), grads, dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(lstm, (c_prev, x), grads, grad_grads,
                                         dtype=numpy.float64, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("c_shape, x_shape", [((2, 3), (2, 11)), ((2, 3), (3, 12)),
                                              ((2, 3, 4), (2, 12, 5))])
def test_lstm_mismatched_shapes_raise_invalid_type(c_shape, x_shape):
    with pytest.raises(type_check.InvalidType):
        lstm(numpy.zeros(c_shape, numpy.float32), numpy.zeros(x_shape, numpy.float32))


# ----------------------------------------------------------------------------- F.slstm
def test_slstm_values_and_gradients():
    c1, c2 = _rand(3, 2, dtype=numpy.float64), _rand(3, 2, dtype=numpy.float64)
    x1, x2 = _rand(3, 8, dtype=numpy.float64), _rand(3, 8, dtype=numpy.float64)
    c, h = slstm(c1, c2, x1, x2)
    (a1, i1, f1, o1), (a2, i2, f2, o2) = _gates(x1), _gates(x2)
    expected_c = (numpy.tanh(a1) * _sigmoid(i1) + numpy.tanh(a2) * _sigmoid(i2)
                  + _sigmoid(f1) * c1 + _sigmoid(f2) * c2)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, _sigmoid(o1 + o2) * numpy.tanh(expected_c),
                                  **TOLERANCE)
    inputs = (c1, c2, x1, x2)
    grads = (_rand(3, 2, dtype=numpy.float64), _rand(3, 2, dtype=numpy.float64))
    grad_grads = tuple(_rand(*a.shape, dtype=numpy.float64) for a in inputs)
    gradient_check.check_backward(slstm, inputs, grads, dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(slstm, inputs, grads, grad_grads,
                                         dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def test_slstm_needs_equal_batches():
    with pytest.raises(type_check.InvalidType):
        slstm(*(numpy.zeros(s, numpy.float32) for s in [(2, 1), (3, 1), (2, 4), (2, 4)]))


# ----------------------------------------------------------------------------- L.LSTM
@pytest.mark.parametrize("cls", [LSTM, StatelessLSTM])
def test_lstm_link_parameters_and_forget_bias(cls):
    link = cls(3, 2)
    shapes = {name: param.shape for name, param in link.namedparams()}
    assert shapes == {"/upward/W": (8, 3), "/upward/b": (8,), "/lateral/W": (8, 2)}
    assert link.state_size == 2
    numpy.testing.assert_array_equal(link.upward.b.array, [0, 0, 1, 0, 0, 0, 1, 0])
    custom = cls(3, 2, bias_init=0.5, forget_bias_init=-1)
    numpy.testing.assert_array_equal(custom.upward.b.array,
                                     [0.5, 0.5, -1, 0.5, 0.5, 0.5, -1, 0.5])


def test_lstm_link_weights_are_lecun_normal_drawn_block_by_block():
    numpy.random.seed(11)
    link = LSTM(3, 2)
    numpy.random.seed(11)
    lateral, upward = [], []
    for _ in range(4):
        lateral.append(numpy.random.normal(0, numpy.sqrt(1 / 2), (2, 2)))
        upward.append(numpy.random.normal(0, numpy.sqrt(1 / 3), (2, 3)))
    numpy.testing.assert_allclose(link.lateral.W.array, numpy.concatenate(lateral), rtol=1e-6)
    numpy.testing.assert_allclose(link.upward.W.array, numpy.concatenate(upward), rtol=1e-6)


def test_lstm_link_lazy_input_size_keeps_lateral_zero_until_the_first_call():
    link = LSTM(2)
    assert link.upward.W.array is None
    assert not link.lateral.W.array.any()
    link(_rand(3, 4))
    assert link.upward.W.shape == (8, 4)
    assert link.lateral.W.array.any()


def test_lstm_link_steps_with_a_shrinking_batch():
    link = LSTM(3, 2)
    c = numpy.zeros((3, 2))
    h = None
    for batch in (3, 2, 2, 1, 0):
        x = _rand(batch, 3)
        gates = _affine(link.upward, x.astype(numpy.float64))
        if h is not None:
            gates = gates + _affine(link.lateral, h[:batch])
        c, y = _lstm_reference(c, gates)
        h = y if h is None else numpy.concatenate([y, h[batch:]])
        numpy.testing.assert_allclose(link(x).array, y, **TOLERANCE)
        numpy.testing.assert_allclose(link.c.array, c, **TOLERANCE)
        numpy.testing.assert_allclose(link.h.array, h, **TOLERANCE)


def test_lstm_link_refuses_a_growing_batch_with_type_error():
    link = LSTM(3, 2)
    link(_rand(1, 3))
    with pytest.raises(TypeError, match="The batch size of x must be equal to or less than"):
        link(_rand(2, 3))


def test_lstm_link_state_methods():
    link = LSTM(3, 2)
    assert link.c is None and link.h is None
    c, h, x = _rand(2, 2), _rand(2, 2), _rand(2, 3)
    link.set_state(chainer.Variable(c), chainer.Variable(h))
    gates = _affine(link.upward, x.astype(numpy.float64)) + _affine(link.lateral, h)
    expected_c, expected_h = _lstm_reference(c.astype(numpy.float64), gates)
    numpy.testing.assert_allclose(link(x).array, expected_h, **TOLERANCE)
    numpy.testing.assert_allclose(link.c.array, expected_c, **TOLERANCE)
    link.reset_state()
    assert link.c is None and link.h is None
    with pytest.raises(AssertionError):
        link.set_state(c, h)


def test_stateless_lstm_link_with_and_without_state():
    link = StatelessLSTM(3, 2)
    x = _rand(2, 3)
    c, h = link(None, None, x)
    expected_c, expected_h = _lstm_reference(numpy.zeros((2, 2)),
                                             _affine(link.upward, x.astype(numpy.float64)))
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)
    c2, h2 = link(c, h, x)
    gates = _affine(link.upward, x.astype(numpy.float64)) + _affine(link.lateral, expected_h)
    expected_c, expected_h = _lstm_reference(expected_c, gates)
    numpy.testing.assert_allclose(c2.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h2.array, expected_h, **TOLERANCE)


# ----------------------------------------------------------------------------- GRUs
def _gru_reference(link, h, x):
    z = _affine(link.W_z, x)
    h_bar = _affine(link.W, x)
    if h is None:
        return _sigmoid(z) * numpy.tanh(h_bar)
    r = _sigmoid(_affine(link.W_r, x) + _affine(link.U_r, h))
    z = _sigmoid(z + _affine(link.U_z, h))
    h_bar = numpy.tanh(h_bar + _affine(link.U, r * h))
    return z * h_bar + (1 - z) * h


@pytest.mark.parametrize("cls", [StatefulGRU, StatelessGRU, GRU])
def test_gru_parameter_names(cls):
    link = cls(3, 2)
    shapes = {name: param.shape for name, param in link.namedparams()}
    assert shapes == {"/W_r/W": (2, 3), "/W_z/W": (2, 3), "/W/W": (2, 3),
                      "/U_r/W": (2, 2), "/U_z/W": (2, 2), "/U/W": (2, 2),
                      "/W_r/b": (2,), "/W_z/b": (2,), "/W/b": (2,),
                      "/U_r/b": (2,), "/U_z/b": (2,), "/U/b": (2,)}


def test_stateless_gru_step():
    link = StatelessGRU(3, 2)
    h, x = _rand(4, 2), _rand(4, 3)
    numpy.testing.assert_allclose(
        link(h, x).array, _gru_reference(link, h.astype(numpy.float64), x), **TOLERANCE)


@pytest.mark.parametrize("cls", [StatefulGRU, GRU])
def test_stateful_gru_steps_and_state(cls):
    link = cls(3, 2)
    assert link.h is None
    h = None
    for _ in range(3):
        x = _rand(2, 3)
        h = _gru_reference(link, h, x.astype(numpy.float64))
        numpy.testing.assert_allclose(link(x).array, h, **TOLERANCE)
        numpy.testing.assert_allclose(link.h.array, h, **TOLERANCE)
    start = _rand(2, 2)
    link.set_state(chainer.Variable(start))
    x = _rand(2, 3)
    numpy.testing.assert_allclose(
        link(x).array, _gru_reference(link, start.astype(numpy.float64), x), **TOLERANCE)
    link.reset_state()
    assert link.h is None


def test_gru_is_stateful_and_takes_one_argument():
    assert issubclass(GRU, StatefulGRU) and GRU is not StatefulGRU
    link = GRU(3, 2)
    with pytest.raises(ValueError, match="Use chainer.links.StatelessGRU instead"):
        link(_rand(1, 2), _rand(1, 3))
    with pytest.raises(ValueError, match="The length of GRU.forward must be 1"):
        link()


# ----------------------------------------------------------------------------- peephole
def test_peephole_lstm_steps():
    link = StatefulPeepholeLSTM(3, 2)
    assert sorted(name for name, _ in link.namedparams()) == [
        "/lateral/W", "/peep_f/W", "/peep_i/W", "/peep_o/W", "/upward/W", "/upward/b"]
    c = numpy.zeros((2, 2))
    h = None
    for _ in range(2):
        x = _rand(2, 3)
        gates = _affine(link.upward, x.astype(numpy.float64))
        if h is not None:
            gates = gates + _affine(link.lateral, h)
        a, i, f, o = _gates(gates)
        i = _sigmoid(i + _affine(link.peep_i, c))
        f = _sigmoid(f + _affine(link.peep_f, c))
        c = numpy.tanh(a) * i + f * c
        h = _sigmoid(o + _affine(link.peep_o, c)) * numpy.tanh(c)
        numpy.testing.assert_allclose(link(x).array, h, **TOLERANCE)
        numpy.testing.assert_allclose(link.c.array, c, **TOLERANCE)


# ----------------------------------------------------------------------------- npz
@pytest.mark.parametrize("make, names", [
    (lambda: LSTM(3, 2), ["lateral/W", "upward/W", "upward/b"]),
    (lambda: StatefulGRU(3, 2), ["U/W", "U/b", "U_r/W", "U_r/b", "U_z/W", "U_z/b",
                                 "W/W", "W/b", "W_r/W", "W_r/b", "W_z/W", "W_z/b"]),
])
def test_saved_names_leave_the_state_out(make, names, tmp_path):
    link = make()
    link(_rand(2, 3))
    path = tmp_path / "rnn.npz"
    serializers.save_npz(str(path), link)
    with numpy.load(str(path)) as saved:
        assert sorted(saved.files) == names
