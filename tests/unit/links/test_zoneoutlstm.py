"""Tests for chainer_compat.links.rnn.zoneoutlstm: StatefulZoneoutLSTM: parameters, the plain
LSTM step outside training, zoneout masks in training, state handling, gradients and errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check, using_config
from chainer_compat.links.rnn.zoneoutlstm import StatefulZoneoutLSTM


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(12)


def _rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _step(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array + h @ link.lateral.W.array.T
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, gate] for gate in range(4))
    c_new = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
    return c_new, _sigmoid(o) * numpy.tanh(c_new)


def test_parameters_and_attributes():
    link = StatefulZoneoutLSTM(3, 2, c_ratio=0.25, h_ratio=0.75)
    assert sorted(name for name, _ in link.namedparams()) == [
        "/lateral/W", "/upward/W", "/upward/b"]
    assert link.lateral.b is None
    assert (link.state_size, link.c_ratio, link.h_ratio) == (2, 0.25, 0.75)
    assert link.c is None and link.h is None


def test_training_mixes_old_and_new_elementwise():
    link = StatefulZoneoutLSTM(3, 2, c_ratio=0.5, h_ratio=0.5)
    c0, h0 = _rand(64, 2), _rand(64, 2)
    link.set_state(Variable(c0), Variable(h0))
    x = _rand(64, 3)
    with using_config("train", True):
        y = link(x)
    c_new, h_new = _step(link, c0, h0, x)
    from_new = numpy.isclose(y.array, h_new, rtol=1e-5, atol=1e-6)
    from_old = y.array == h0
    assert (from_new | from_old).all()
    assert from_new.any() and from_old.any()
    c_from_new = numpy.isclose(link.c.array, c_new, rtol=1e-5, atol=1e-6)
    assert (c_from_new | (link.c.array == c0)).all()


def test_first_step_outside_training_starts_from_zeros():
    link = StatefulZoneoutLSTM(3, 2)
    x = _rand(4, 3)
    with using_config("train", False):
        y = link(x)
    _, expected = _step(link, numpy.zeros((4, 2)), numpy.zeros((4, 2)), x)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_gradients_outside_training():
    link = StatefulZoneoutLSTM(3, 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)

    def two_steps(x1, x2):
        link.reset_state()
        link(x1)
        return link(x2)

    with using_config("train", False):
        gradient_check.check_backward(
            two_steps, (_rand(2, 3, dtype=numpy.float64), _rand(2, 3, dtype=numpy.float64)),
            _rand(2, 2, dtype=numpy.float64), params=tuple(link.params()),
            dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="train argument is not supported"):
        StatefulZoneoutLSTM(3, 2, train=False)
    with pytest.raises(TypeError):
        StatefulZoneoutLSTM(3, 2, ratio=0.5)
    link = StatefulZoneoutLSTM(3, 2)
    with pytest.raises(TypeError, match="h must be a chainer.Variable"):
        link.set_state(Variable(_rand(1, 2)), _rand(1, 2))
