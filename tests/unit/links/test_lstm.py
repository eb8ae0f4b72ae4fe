"""Tests for chainer_compat.links.rnn.lstm and .peephole: LSTM, StatelessLSTM and
StatefulPeepholeLSTM: parameters and their initialization, lazy input size, steps against a NumPy
formula on the link's own parameters, state handling (shrinking batches, reset, set), gradients,
serialization and devices."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check, initializers, serializers
from chainer_compat.links.rnn.lstm import LSTM, LSTMBase, StatelessLSTM
from chainer_compat.links.rnn.peephole import StatefulPeepholeLSTM


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(1)


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _lstm_reference(c_prev, x):
    """``(c, h)`` with gate ``g`` of unit ``k`` at channel ``4k + g`` of ``x``."""
    batch = len(x)
    a, i, f, o = (x[:, gate::4] for gate in range(4))
    c = c_prev.copy()
    c[:batch] = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    return c, _sigmoid(o) * numpy.tanh(c[:batch])


def _step_reference(link, c, h, x):
    """One step of ``link`` in float64 NumPy from its own parameters; c, h may be None."""
    weight = link.upward.W.array.astype(numpy.float64)
    gates = x.reshape(len(x), weight.shape[1]) @ weight.T
    gates = gates + link.upward.b.array
    if h is not None:
        gates = gates + h @ link.lateral.W.array.T.astype(numpy.float64)
    if c is None:
        c = numpy.zeros((len(x), link.state_size))
    return _lstm_reference(c, gates)


def _rand(*shape):
    return numpy.random.uniform(-1, 1, shape).astype(numpy.float32)


def _close(actual, expected):
    numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("cls", [LSTM, StatelessLSTM])
def test_children_and_parameter_shapes(cls):
    link = cls(3, 2)
    assert isinstance(link, LSTMBase)
    assert link.state_size == 2
    shapes = {name: param.shape for name, param in link.namedparams()}
    assert shapes == {"/upward/W": (8, 3), "/upward/b": (8,), "/lateral/W": (8, 2)}
    assert all(param.dtype == numpy.float32 for param in link.params())
    assert link.lateral.b is None


def test_bias_is_zero_except_the_forget_gate_which_is_one():
    link = LSTM(3, 4)
    expected = numpy.tile(numpy.array([0, 0, 1, 0], numpy.float32), 4)
    numpy.testing.assert_array_equal(link.upward.b.array, expected)


def test_bias_initializers_follow_the_interleaved_gate_layout():
    link = LSTM(3, 2, bias_init=0.5, forget_bias_init=-2)
    numpy.testing.assert_array_equal(link.upward.b.array.reshape(2, 4),
                                     [[0.5, 0.5, -2, 0.5]] * 2)


def test_weight_initializers_are_called_block_by_block():
    seen = []

    def recording(value):
        def fill(array):
            seen.append((value, array.shape))
            array[...] = value
        return fill

    link = LSTM(3, 2, lateral_init=recording(1.0), upward_init=recording(2.0),
                bias_init=recording(3.0), forget_bias_init=recording(4.0))
    assert seen.count((1.0, (2, 2))) == 4 and seen.count((2.0, (2, 3))) == 4
    assert seen.count((3.0, (1, 2, 1))) == 3 and seen.count((4.0, (1, 2, 1))) == 1
    assert (link.lateral.W.array == 1).all() and (link.upward.W.array == 2).all()
    numpy.testing.assert_array_equal(link.upward.b.array.reshape(2, 4), [[3, 3, 4, 3]] * 2)


def test_default_weights_are_lecun_normal_drawn_block_by_block():
    numpy.random.seed(5)
    link = LSTM(3, 2)
    numpy.random.seed(5)
    lateral, upward = [], []
    for _ in range(4):
        lateral.append(numpy.random.normal(0, numpy.sqrt(1 / 2), (2, 2)))
        upward.append(numpy.random.normal(0, numpy.sqrt(1 / 3), (2, 3)))
    _close(link.lateral.W.array, numpy.concatenate(lateral).astype(numpy.float32))
    _close(link.upward.W.array, numpy.concatenate(upward).astype(numpy.float32))


@pytest.mark.parametrize("args", [(4,), (None, 4)])
def test_lazy_input_size_initializes_everything_on_the_first_call(args):
    link = LSTM(*args, lateral_init=initializers.Constant(0.25))
    assert link.upward.W.array is None
    # compat: lateral is filled with the rest, so it is zero until the first call.
    numpy.testing.assert_array_equal(link.lateral.W.array, numpy.zeros((16, 4)))
    link(_rand(2, 5, 2))
    assert link.upward.W.shape == (16, 10)
    numpy.testing.assert_array_equal(link.lateral.W.array, numpy.full((16, 4), 0.25))
    assert link.upward.b.array[2] == 1


def test_stateless_lazy_input_size_flattens_the_input():
    link = StatelessLSTM(3)
    c, h = link(None, None, _rand(2, 2, 3))
    assert link.upward.W.shape == (12, 6)
    assert c.shape == h.shape == (2, 3)


def test_missing_sizes_are_rejected():
    with pytest.raises(TypeError, match="out_size must be an int"):
        LSTM(None)


# ----------------------------------------------------------------------------- steps and state
def test_steps_match_numpy_with_a_shrinking_batch():
    link = LSTM(3, 2)
    c = h = None
    for batch in (3, 3, 2, 1, 0):
        x = _rand(batch, 3)
        y = link(x)
        h_update = None if h is None else h[:batch]
        c, y_expected = _step_reference(link, c, h_update, x.astype(numpy.float64))
        h = y_expected if h is None else numpy.concatenate([y_expected, h[batch:]])
        assert y.shape == (batch, 2)
        _close(y.array, y_expected)
        _close(link.c.array, c)
        _close(link.h.array, h)
    assert link.c.shape == link.h.shape == (3, 2)


def test_a_larger_batch_than_the_state_is_refused():
    link = LSTM(3, 2)
    link(_rand(2, 3))
    with pytest.raises(TypeError, match="The batch size of x must be equal to or less than the "
                                        "size of the previous state h"):
        link(_rand(3, 3))


def test_reset_state_starts_again_from_zeros():
    link = LSTM(3, 2)
    x = _rand(2, 3)
    first = link(x).array
    assert not numpy.allclose(link(x).array, first)
    link.reset_state()
    assert link.c is None and link.h is None
    numpy.testing.assert_array_equal(link(x).array, first)


def test_set_state_is_the_state_of_the_next_step():
    link = LSTM(3, 2)
    c, h, x = _rand(2, 2), _rand(2, 2), _rand(2, 3)
    link.set_state(Variable(c), Variable(h))
    y = link(x)
    c_expected, y_expected = _step_reference(link, c.astype(numpy.float64), h, x)
    _close(y.array, y_expected)
    _close(link.c.array, c_expected)


@pytest.mark.parametrize("state", [(numpy.zeros((1, 2)), Variable(numpy.zeros((1, 2)))),
                                   (Variable(numpy.zeros((1, 2))), None)])
def test_set_state_refuses_anything_but_variables(state):
    link = LSTM(3, 2)
    with pytest.raises(TypeError, match="must be a chainer.Variable") as info:
        link.set_state(*state)
    assert isinstance(info.value, AssertionError)  # compat: Chainer asserts


def test_stateless_lstm_matches_numpy_with_and_without_state():
    link = StatelessLSTM(3, 2)
    x = _rand(2, 3)
    c, h = link(None, None, x)
    c_expected, h_expected = _step_reference(link, None, None, x)
    _close(c.array, c_expected)
    _close(h.array, h_expected)
    c2, h2 = link(c, h, x)
    c_expected, h_expected = _step_reference(link, c_expected, h_expected, x)
    _close(c2.array, c_expected)
    _close(h2.array, h_expected)


def test_stateless_lstm_state_may_have_more_rows_than_x():
    link = StatelessLSTM(3, 2)
    c, h, x = _rand(3, 2), _rand(2, 2), _rand(2, 3)
    c_new, h_new = link(c, h, x)
    c_expected, h_expected = _step_reference(link, c.astype(numpy.float64), h, x)
    _close(c_new.array, c_expected)
    _close(h_new.array, h_expected)
    assert c_new.shape == (3, 2)


# ----------------------------------------------------------------------------- gradients
def _as_float64(link):
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    return link


def test_gradients_through_two_steps_reach_inputs_and_parameters():
    link = _as_float64(LSTM(3, 2))
    x1, x2 = numpy.random.uniform(-1, 1, (3, 3)), numpy.random.uniform(-1, 1, (2, 3))

    def two_steps(x1, x2):
        link.reset_state()
        link(x1)
        return link(x2)

    gy = numpy.random.uniform(-1, 1, (2, 2))
    gradient_check.check_backward(
        two_steps, (x1, x2), gy, params=(link.upward.W, link.upward.b, link.lateral.W),
        dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def test_stateless_gradients_reach_the_state():
    link = _as_float64(StatelessLSTM(3, 2))
    inputs = (numpy.random.uniform(-1, 1, (2, 2)), numpy.random.uniform(-1, 1, (2, 2)),
              numpy.random.uniform(-1, 1, (2, 3)))
    grads = tuple(numpy.random.uniform(-1, 1, (2, 2)) for _ in range(2))
    gradient_check.check_backward(link, inputs, grads, params=tuple(link.params()),
                                  dtype=numpy.float64, atol=1e-6, rtol=1e-5)


# ----------------------------------------------------------------------------- npz, devices
@pytest.mark.parametrize("cls", [LSTM, StatelessLSTM])
def test_npz_holds_the_child_parameters_only(cls, tmp_path):
    source = cls(3, 2)
    if cls is LSTM:
        source(_rand(2, 3))
    path = tmp_path / "lstm.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(str(path)) as saved:
        assert sorted(saved.files) == ["lateral/W", "upward/W", "upward/b"]
    target = cls(2)
    serializers.load_npz(str(path), target)
    for (name, expected), (_, actual) in zip(sorted(source.namedparams()),
                                             sorted(target.namedparams())):
        numpy.testing.assert_array_equal(actual.array, expected.array, err_msg=name)


def test_to_cpu_keeps_the_state():
    link = LSTM(3, 2)
    link(_rand(2, 3))
    c, h = link.c.array, link.h.array
    link.to_device("@numpy")
    numpy.testing.assert_array_equal(link.c.array, c)
    numpy.testing.assert_array_equal(link.h.array, h)


@pytest.mark.gpu
@pytest.mark.parametrize("cls", [LSTM, StatefulPeepholeLSTM])
def test_to_gpu_moves_the_state_and_steps_run_there(cupy, cls):
    link = cls(3, 2)
    x = _rand(2, 3)
    expected = [link(x).array]
    expected.append(link(x).array)
    link.reset_state()
    link(x)
    link.to_gpu()
    assert isinstance(link.c.array, cupy.ndarray) and isinstance(link.h.array, cupy.ndarray)
    y = link(cupy.asarray(x))
    _close(cupy.asnumpy(y.array), expected[1])
    link.to_cpu()
    assert isinstance(link.c.array, numpy.ndarray) and isinstance(link.h.array, numpy.ndarray)


@pytest.mark.gpu
def test_first_step_on_gpu_makes_its_zero_state_there(cupy):
    link = LSTM(3, 2).to_gpu()
    y = link(cupy.asarray(_rand(2, 3)))
    assert isinstance(link.c.array, cupy.ndarray) and isinstance(y.array, cupy.ndarray)


# ----------------------------------------------------------------------------- peephole
def test_peephole_children_and_parameter_shapes():
    link = StatefulPeepholeLSTM(3, 2)
    shapes = {name: param.shape for name, param in link.namedparams()}
    assert shapes == {"/upward/W": (8, 3), "/upward/b": (8,), "/lateral/W": (8, 2),
                      "/peep_i/W": (2, 2), "/peep_f/W": (2, 2), "/peep_o/W": (2, 2)}
    numpy.testing.assert_array_equal(link.upward.b.array, numpy.zeros(8))


def test_peephole_steps_match_numpy():
    link = StatefulPeepholeLSTM(3, 2)
    weights = {name.strip("/"): param.array.astype(numpy.float64)
               for name, param in link.namedparams()}
    c = numpy.zeros((2, 2))
    h = None
    for _ in range(3):
        x = _rand(2, 3)
        gates = x @ weights["upward/W"].T + weights["upward/b"]
        if h is not None:
            gates += h @ weights["lateral/W"].T
        a, i, f, o = (gates[:, gate::4] for gate in range(4))
        i = _sigmoid(i + c @ weights["peep_i/W"].T)
        f = _sigmoid(f + c @ weights["peep_f/W"].T)
        c = numpy.tanh(a) * i + f * c
        h = _sigmoid(o + c @ weights["peep_o/W"].T) * numpy.tanh(c)
        y = link(x)
        _close(y.array, h)
        _close(link.c.array, c)
    link.reset_state()
    assert link.c is None and link.h is None


def test_peephole_gradients_reach_every_parameter():
    link = _as_float64(StatefulPeepholeLSTM(3, 2))
    x1, x2 = numpy.random.uniform(-1, 1, (2, 3)), numpy.random.uniform(-1, 1, (2, 3))

    def two_steps(x1, x2):
        link.reset_state()
        link(x1)
        return link(x2)

    gradient_check.check_backward(two_steps, (x1, x2), numpy.random.uniform(-1, 1, (2, 2)),
                                  params=tuple(link.params()), dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
