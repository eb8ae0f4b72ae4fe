"""Tests for chainer_compat.links.rnn.gru: StatelessGRU, StatefulGRU and GRU: parameter names and
initializers, steps against a NumPy formula on the link's own parameters, state handling,
gradients, the strict one-argument GRU, serialization and devices."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check, initializers, serializers
from chainer_compat.links.rnn.gru import GRU, GRUBase, StatefulGRU, StatelessGRU

NAMES = ["/U/W", "/U/b", "/U_r/W", "/U_r/b", "/U_z/W", "/U_z/b",
         "/W/W", "/W/b", "/W_r/W", "/W_r/b", "/W_z/W", "/W_z/b"]


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(2)


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _affine(link, name, v):
    child = getattr(link, name)
    return v @ child.W.array.T.astype(numpy.float64) + child.b.array


def _gru_reference(link, h, x):
    """The GRU step from the link's parameters; ``h`` None is the stateful first step."""
    z = _affine(link, "W_z", x)
    h_bar = _affine(link, "W", x)
    if h is None:
        return _sigmoid(z) * numpy.tanh(h_bar)
    r = _sigmoid(_affine(link, "W_r", x) + _affine(link, "U_r", h))
    z = _sigmoid(z + _affine(link, "U_z", h))
    h_bar = numpy.tanh(h_bar + _affine(link, "U", r * h))
    return z * h_bar + (1 - z) * h


def _rand(*shape):
    return numpy.random.uniform(-1, 1, shape).astype(numpy.float32)


def _close(actual, expected):
    numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [StatelessGRU, StatefulGRU, GRU])
def test_parameter_names_and_shapes(cls):
    link = cls(3, 2)
    assert isinstance(link, GRUBase)
    shapes = dict(link.namedparams())
    assert sorted(shapes) == NAMES
    for name in ("W_r", "W_z", "W"):
        assert getattr(link, name).W.shape == (2, 3)
    for name in ("U_r", "U_z", "U"):
        assert getattr(link, name).W.shape == (2, 2)
    assert all((child.b.array == 0).all() for child in link.children())


def test_initializers_reach_input_state_and_bias_weights():
    link = StatefulGRU(3, 2, init=initializers.Constant(0.5), inner_init=0.25, bias_init=-1)
    for name in ("W_r", "W_z", "W"):
        assert (getattr(link, name).W.array == 0.5).all()
    for name in ("U_r", "U_z", "U"):
        assert (getattr(link, name).W.array == 0.25).all()
    assert all((child.b.array == -1).all() for child in link.children())


def test_gru_is_a_stateful_gru_and_not_the_same_class():
    assert issubclass(GRU, StatefulGRU) and GRU is not StatefulGRU


def test_lazy_input_size():
    link = StatefulGRU(None, 2)
    assert link.W.W.array is None and link.U.W.shape == (2, 2)
    link(_rand(4, 5))
    assert link.W_z.W.shape == link.W.W.shape == (2, 5)
    # compat: the first step has no state, so W_r is not used and stays uninitialized.
    assert link.W_r.W.array is None
    link(_rand(4, 5))
    assert link.W_r.W.shape == (2, 5)


def test_stateless_step_matches_numpy():
    link = StatelessGRU(3, 2)
    h, x = _rand(4, 2), _rand(4, 3)
    _close(link(h, x).array, _gru_reference(link, h.astype(numpy.float64), x))


@pytest.mark.parametrize("cls", [StatefulGRU, GRU])
def test_stateful_steps_match_numpy(cls):
    link = cls(3, 2)
    h = None
    for _ in range(3):
        x = _rand(4, 3)
        h = _gru_reference(link, h, x.astype(numpy.float64))
        y = link(x)
        _close(y.array, h)
        assert link.h is y
    link.reset_state()
    assert link.h is None


def test_set_state_is_the_state_of_the_next_step():
    link = StatefulGRU(3, 2)
    h, x = _rand(2, 2), _rand(2, 3)
    link.set_state(Variable(h))
    _close(link(x).array, _gru_reference(link, h.astype(numpy.float64), x))


def test_set_state_refuses_an_array():
    link = StatefulGRU(3, 2)
    with pytest.raises(TypeError, match="h must be a chainer.Variable") as info:
        link.set_state(numpy.zeros((1, 2), numpy.float32))
    assert isinstance(info.value, AssertionError)  # compat: Chainer asserts


@pytest.mark.parametrize("count", [0, 2, 3])
def test_gru_takes_exactly_one_argument(count):
    link = GRU(3, 2)
    with pytest.raises(ValueError, match=f"But {count} is given") as info:
        link(*[_rand(1, 3)] * count)
    assert ("StatelessGRU" in str(info.value)) == (count == 2)


def test_stateless_gradients_reach_state_input_and_parameters():
    link = StatelessGRU(3, 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    h, x = numpy.random.uniform(-1, 1, (2, 2)), numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(link, (h, x), numpy.random.uniform(-1, 1, (2, 2)),
                                  params=tuple(link.params()), dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)


def test_stateful_gradients_through_two_steps():
    link = StatefulGRU(3, 2)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)

    def two_steps(x1, x2):
        link.reset_state()
        link(x1)
        return link(x2)

    x1, x2 = numpy.random.uniform(-1, 1, (2, 3)), numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(two_steps, (x1, x2), numpy.random.uniform(-1, 1, (2, 2)),
                                  params=tuple(link.params()), dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("cls", [StatelessGRU, StatefulGRU])
def test_npz_round_trip_keeps_the_names(cls, tmp_path):
    source = cls(3, 2)
    path = tmp_path / "gru.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(str(path)) as saved:
        assert sorted(saved.files) == sorted(name.lstrip("/") for name in NAMES)
    target = cls(3, 2, init=0, inner_init=0)
    serializers.load_npz(str(path), target)
    for name, param in source.namedparams():
        numpy.testing.assert_array_equal(dict(target.namedparams())[name].array, param.array)


@pytest.mark.gpu
def test_to_gpu_moves_the_state(cupy):
    link = StatefulGRU(3, 2)
    x = _rand(2, 3)
    link(x)
    expected = _gru_reference(link, link.h.array.astype(numpy.float64), x)
    link.to_gpu()
    assert isinstance(link.h.array, cupy.ndarray)
    _close(cupy.asnumpy(link(cupy.asarray(x)).array), expected)
