"""Tests for chainer_compat.links.activation.maxout: Maxout's Linear child, grouped
initializers, output and gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, initializers, serializers
from chainer_compat.links.activation.maxout import Maxout
from chainer_compat.links.connection.linear import Linear


def _maxout_reference(link, x):
    pre = x @ link.linear.W.array.T
    if link.linear.b is not None:
        pre = pre + link.linear.b.array
    return pre.reshape(len(x), link.out_size, link.pool_size).max(axis=2)


def test_structure_and_defaults():
    link = Maxout(3, 2, 4)
    assert isinstance(link.linear, Linear)
    assert (link.out_size, link.pool_size) == (2, 4)
    assert link.linear.W.shape == (8, 3)
    numpy.testing.assert_array_equal(link.linear.b.array, numpy.zeros(8, numpy.float32))
    assert sorted(name for name, _ in link.namedparams()) == ["/linear/W", "/linear/b"]


def test_initial_bias_none_means_no_bias():
    link = Maxout(3, 2, 4, initial_bias=None)
    assert link.linear.b is None
    assert [name for name, _ in link.namedparams()] == ["/linear/W"]


def test_array_initializers_are_grouped_by_output_unit():
    weight = numpy.arange(24.0).reshape(2, 4, 3)
    bias = numpy.arange(8.0).reshape(2, 4)
    link = Maxout(3, 2, 4, initialW=weight, initial_bias=bias)
    numpy.testing.assert_array_equal(link.linear.W.array, weight.reshape(8, 3))
    numpy.testing.assert_array_equal(link.linear.b.array, bias.reshape(8))


def test_plain_callables_see_the_grouped_shape():
    seen = []

    def fill(array):
        seen.append(array.shape)
        array[...] = numpy.arange(array.size).reshape(array.shape)

    link = Maxout(3, 2, 4, initialW=fill, initial_bias=fill)
    assert seen == [(2, 4, 3), (2, 4)]
    numpy.testing.assert_array_equal(link.linear.W.array, numpy.arange(24).reshape(8, 3))
    numpy.testing.assert_array_equal(link.linear.b.array, numpy.arange(8))


def test_initializer_objects_fill_the_flat_weight():
    link = Maxout(3, 2, 4, initialW=initializers.Constant(0.5), initial_bias=1.0)
    assert (link.linear.W.array == 0.5).all() and (link.linear.b.array == 1).all()


@pytest.mark.parametrize("kwargs, match", [
    ({"initialW": numpy.ones((8, 3))}, "initialW must be a 3-D array"),
    ({"initial_bias": numpy.ones(8)}, "initial_bias must be a 2-D array"),
])
def test_wrong_array_rank_raises_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Maxout(3, 2, 4, **kwargs)


def test_lazy_in_size_with_callable_initializer():
    link = Maxout(None, 2, 3, initialW=lambda array: array.fill(0.5))
    assert link.linear.W.array is None
    link(numpy.ones((1, 5), numpy.float32))
    assert link.linear.W.shape == (6, 5) and (link.linear.W.array == 0.5).all()


def test_output_matches_numpy():
    link = Maxout(3, 2, 4)
    link.linear.b.array[...] = numpy.random.rand(8)
    x = numpy.random.rand(5, 3).astype(numpy.float32)
    y = link(x)
    assert y.shape == (5, 2)
    numpy.testing.assert_allclose(y.array, _maxout_reference(link, x), rtol=1e-5)


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Maxout(3, 2, 3)
    # Well separated pool members keep the max away from ties, where it is not differentiable.
    link.linear.b.array[...] = numpy.arange(6) * 3.0
    x = numpy.random.uniform(-0.5, 0.5, (4, 3))
    gy = numpy.random.uniform(-1, 1, (4, 2))
    gradient_check.check_backward(link, x, gy, tuple(link.params()), dtype=numpy.float64)


def test_npz_round_trip(tmp_path):
    source = Maxout(3, 2, 4)
    path = tmp_path / "maxout.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["linear/W", "linear/b"]
    target = Maxout(None, 2, 4)
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.linear.W.array, source.linear.W.array)
