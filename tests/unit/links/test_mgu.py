"""Tests for chainer_compat.links.rnn.mgu: StatelessMGU and StatefulMGU: parameters, steps
against a NumPy formula on the link's own parameters, the zero first state, state handling,
gradients, serialization and devices."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check, serializers, using_config
from chainer_compat.links.rnn.mgu import MGUBase, StatefulMGU, StatelessMGU


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(11)


def _rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _step(link, h, x):
    def affine(child, v):
        return v @ child.W.array.T.astype(numpy.float64) + child.b.array

    f = _sigmoid(affine(link.W_f, numpy.concatenate([h, x], axis=1)))
    h_bar = numpy.tanh(affine(link.W_h, numpy.concatenate([f * h, x], axis=1)))
    return f * h_bar + (1 - f) * h


def test_both_links_share_the_base_parameters():
    for link in (StatelessMGU(3, 2), StatefulMGU(3, 2)):
        assert isinstance(link, MGUBase)
        assert sorted(name for name, _ in link.namedparams()) == [
            "/W_f/W", "/W_f/b", "/W_h/W", "/W_h/b"]
        assert link.W_f.W.shape == link.W_h.W.shape == (2, 5)


def test_stateless_step_matches_numpy():
    link = StatelessMGU(3, 2)
    h, x = _rand(4, 2), _rand(4, 3)
    numpy.testing.assert_allclose(link(h, x).array, _step(link, h, x), rtol=1e-5, atol=1e-6)


def test_stateful_steps_match_numpy_and_reset():
    link = StatefulMGU(3, 2)
    x1, x2 = _rand(4, 3), _rand(4, 3)
    y1 = link(x1)
    expected1 = _step(link, numpy.zeros((4, 2)), x1)
    numpy.testing.assert_allclose(y1.array, expected1, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link(x2).array, _step(link, expected1, x2), rtol=1e-5,
                                  atol=1e-6)
    link.reset_state()
    assert link.h is None


def test_first_state_has_the_configured_dtype():
    link = StatefulMGU(3, 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    with using_config("dtype", numpy.float64):
        y = link(_rand(2, 3, dtype=numpy.float64))
    assert y.dtype == numpy.float64


def test_set_state_rejects_arrays_with_a_type_error():
    link = StatefulMGU(3, 2)
    with pytest.raises(TypeError, match="h must be a chainer.Variable, got ndarray"):
        link.set_state(_rand(1, 2))


def test_stateless_gradients_reach_state_input_and_parameters():
    link = StatelessMGU(3, 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    h, x = _rand(2, 2, dtype=numpy.float64), _rand(2, 3, dtype=numpy.float64)
    gradient_check.check_backward(link, (h, x), _rand(2, 2, dtype=numpy.float64),
                                  params=tuple(link.params()), dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)


def test_stateful_gradients_through_two_steps():
    link = StatefulMGU(3, 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)

    def two_steps(x1, x2):
        link.reset_state()
        link.set_state(Variable(numpy.zeros((2, 2))))
        link(x1)
        return link(x2)

    gradient_check.check_backward(
        two_steps, (_rand(2, 3, dtype=numpy.float64), _rand(2, 3, dtype=numpy.float64)),
        _rand(2, 2, dtype=numpy.float64), params=tuple(link.params()), dtype=numpy.float64,
        atol=1e-6, rtol=1e-5)


def test_npz_round_trip(tmp_path):
    source, target = StatefulMGU(3, 2), StatefulMGU(3, 2)
    path = tmp_path / "mgu.npz"
    serializers.save_npz(str(path), source)
    assert sorted(numpy.load(path).files) == ["W_f/W", "W_f/b", "W_h/W", "W_h/b"]
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.W_h.W.array, source.W_h.W.array)


@pytest.mark.gpu
def test_to_gpu_moves_the_state(cupy):
    link = StatefulMGU(3, 2)
    x = _rand(2, 3)
    link(x)
    expected = _step(link, link.h.array.astype(numpy.float64), x)
    link.to_gpu()
    assert isinstance(link.h.array, cupy.ndarray)
    numpy.testing.assert_allclose(cupy.asnumpy(link(cupy.asarray(x)).array), expected,
                                  rtol=1e-5, atol=1e-6)
