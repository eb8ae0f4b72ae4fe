"""Tests for chainer_compat.links.connection.scale: Scale with a learned W, with a second
input, and with its Bias child."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, serializers
from chainer_compat.links.connection.bias import Bias
from chainer_compat.links.connection.scale import Scale


def test_learned_scale_is_ones_and_bias_is_a_child():
    link = Scale(axis=1, W_shape=(3,), bias_term=True)
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/bias/b"]
    assert isinstance(link.bias, Bias) and link.bias.axis == 1
    numpy.testing.assert_array_equal(link.W.array, numpy.ones(3, numpy.float32))
    assert link.bias.b.shape == (3,)


def test_without_w_shape_bias_uses_bias_shape():
    link = Scale(bias_term=True, bias_shape=(4,))
    assert [name for name, _ in link.namedparams()] == ["/bias/b"]
    assert link.bias.b.shape == (4,)
    assert list(Scale().params()) == []


def test_bias_term_without_any_shape_raises_value_error():
    with pytest.raises(ValueError, match="bias_shape must be given"):
        Scale(bias_term=True)


def test_learned_scale_with_bias_matches_numpy():
    x = numpy.random.rand(2, 3, 4).astype(numpy.float32)
    link = Scale(axis=1, W_shape=(3,), bias_term=True)
    link.W.array[...] = numpy.random.rand(3)
    link.bias.b.array[...] = numpy.random.rand(3)
    expected = x * link.W.array[:, None] + link.bias.b.array[:, None]
    numpy.testing.assert_allclose(link(x).array, expected, rtol=1e-6)


def test_two_input_form_matches_numpy():
    x = numpy.random.rand(2, 3, 4).astype(numpy.float32)
    y = numpy.random.rand(3).astype(numpy.float32)
    link = Scale(axis=1, bias_term=True, bias_shape=(3,))
    link.bias.b.array[...] = 2
    numpy.testing.assert_allclose(link(x, y).array, x * y[:, None] + 2, rtol=1e-6)


def test_wrong_number_of_inputs_raises_value_error():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(ValueError, match="one input, got 2"):
        Scale(W_shape=(3,))(x, x)
    with pytest.raises(ValueError, match="two inputs, got 1"):
        Scale()(x)


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Scale(axis=1, W_shape=(3,), bias_term=True)
    link.W.array[...] = numpy.random.uniform(0.5, 1.5, 3)
    x = numpy.random.uniform(-1, 1, (2, 3, 4))
    gy = numpy.random.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_backward(link, x, gy, (link.W, link.bias.b), dtype=numpy.float64)


def test_two_input_backward_matches_numerical_gradient():
    x = numpy.random.uniform(-1, 1, (2, 3, 4))
    y = numpy.random.uniform(-1, 1, (3, 4))
    gy = numpy.random.uniform(-1, 1, (2, 3, 4))
    gradient_check.check_backward(Scale(axis=1), (x, y), gy, dtype=numpy.float64)


def test_npz_round_trip_uses_child_path(tmp_path):
    source = Scale(W_shape=(3,), bias_term=True)
    source.W.array[...] = numpy.arange(3)
    source.bias.b.array[...] = numpy.arange(3) + 10
    path = tmp_path / "scale.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["W", "bias/b"]
    target = Scale(W_shape=(3,), bias_term=True)
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.W.array, source.W.array)
    numpy.testing.assert_array_equal(target.bias.b.array, source.bias.b.array)


def test_copy_copies_the_child():
    link = Scale(W_shape=(3,), bias_term=True)
    copied = link.copy("copy")
    assert copied.bias is not link.bias
    assert copied.bias.b.array is not link.bias.b.array
    assert link.copy().bias.b.array is link.bias.b.array
