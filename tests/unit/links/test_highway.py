"""Tests for chainer_compat.links.connection.highway: Highway's two Linear children, gate
bias, output and gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import functions, gradient_check, serializers
from chainer_compat.links.connection.highway import Highway
from chainer_compat.links.connection.linear import Linear


def _sigmoid(value):
    return 1 / (1 + numpy.exp(-value))


def _highway_reference(link, x, activate):
    plain = activate(x @ link.plain.W.array.T + link.plain.b.array)
    gate = _sigmoid(x @ link.transform.W.array.T + link.transform.b.array)
    return plain * gate + x * (1 - gate)


def test_children_and_default_gate_bias():
    link = Highway(3)
    assert isinstance(link.plain, Linear) and isinstance(link.transform, Linear)
    assert sorted(name for name, _ in link.namedparams()) == [
        "/plain/W", "/plain/b", "/transform/W", "/transform/b"]
    numpy.testing.assert_array_equal(link.transform.b.array, numpy.full(3, -1, numpy.float32))
    numpy.testing.assert_array_equal(link.plain.b.array, numpy.zeros(3, numpy.float32))
    assert link.activate is functions.relu


def test_nobias_and_initializers_reach_children():
    link = Highway(2, nobias=True, init_Wh=1.0, init_Wt=2.0)
    assert link.plain.b is None and link.transform.b is None
    assert (link.plain.W.array == 1).all() and (link.transform.W.array == 2).all()
    link = Highway(2, init_bh=0.5, init_bt=0.25)
    assert (link.plain.b.array == 0.5).all() and (link.transform.b.array == 0.25).all()


@pytest.mark.parametrize("activate, reference", [
    (functions.relu, lambda v: numpy.maximum(v, 0)),
    (functions.tanh, numpy.tanh),
])
def test_output_matches_numpy(activate, reference):
    link = Highway(3, activate=activate)
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    numpy.testing.assert_allclose(link(x).array, _highway_reference(link, x, reference),
                                  rtol=1e-5, atol=1e-6)


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Highway(3, activate=functions.tanh)
    x = numpy.random.uniform(-1, 1, (4, 3))
    gy = numpy.random.uniform(-1, 1, (4, 3))
    gradient_check.check_backward(link, x, gy, tuple(link.params()), dtype=numpy.float64)


def test_double_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Highway(2, activate=functions.tanh)
    x = numpy.random.uniform(-1, 1, (3, 2))
    gy = numpy.random.uniform(-1, 1, (3, 2))
    ggx = numpy.random.uniform(-1, 1, (3, 2))
    gradient_check.check_double_backward(link, x, gy, ggx, dtype=numpy.float64)


def test_npz_round_trip_uses_child_paths(tmp_path):
    source = Highway(3)
    path = tmp_path / "highway.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["plain/W", "plain/b", "transform/W", "transform/b"]
    target = Highway(3)
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.plain.W.array, source.plain.W.array)
    numpy.testing.assert_array_equal(target.transform.W.array, source.transform.W.array)
