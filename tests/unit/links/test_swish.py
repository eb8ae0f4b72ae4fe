"""Tests for chainer_compat.links.activation.swish: Swish's beta (given or lazy shape),
output and gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, serializers
from chainer_compat.links.activation.swish import Swish


def test_beta_shape_is_required():
    with pytest.raises(TypeError):
        Swish()  # type: ignore[call-arg]


def test_given_shape_initializes_beta_at_once():
    link = Swish((3,), beta_init=2.0)
    assert [name for name, _ in link.namedparams()] == ["/beta"]
    numpy.testing.assert_array_equal(link.beta.array, numpy.full(3, 2, numpy.float32))


def test_none_shape_takes_shape_after_batch_axis():
    link = Swish(None)
    assert link.beta.array is None
    link(numpy.ones((2, 3, 4), numpy.float32))
    assert link.beta.shape == (3, 4) and link.beta.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.beta.array, numpy.ones((3, 4)))


def test_lazy_array_init_is_broadcast_to_input_shape():
    link = Swish(None, beta_init=numpy.array([1.0, 2.0, 3.0]))
    assert link.beta.array is None
    link(numpy.ones((2, 4, 3), numpy.float32))
    numpy.testing.assert_array_equal(link.beta.array, numpy.tile([1.0, 2.0, 3.0], (4, 1)))


def test_output_matches_numpy():
    link = Swish((3,))
    link.beta.array[...] = numpy.random.rand(3)
    x = numpy.random.uniform(-2, 2, (4, 3)).astype(numpy.float32)
    expected = x / (1 + numpy.exp(-link.beta.array * x))
    numpy.testing.assert_allclose(link(x).array, expected, rtol=1e-5)


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = Swish(None)
        x = numpy.random.uniform(-1, 1, (2, 3))
        link(x)
    link.beta.array[...] = numpy.random.uniform(0.5, 1.5, 3)
    gy = numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(link, x, gy, link.beta, dtype=numpy.float64)


def test_npz_round_trip_fills_lazy_link(tmp_path):
    source = Swish((3,), beta_init=1.5)
    path = tmp_path / "swish.npz"
    serializers.save_npz(str(path), source)
    target = Swish(None)
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.beta.array, source.beta.array)
