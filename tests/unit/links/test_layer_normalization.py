"""Tests for chainer_compat.links.normalization.layer_normalization: LayerNormalization's lazy
size, initial values, output and gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import gradient_check, serializers
from chainer_compat.links.normalization.layer_normalization import LayerNormalization
from chainer_compat.utils import type_check


def _layer_norm_reference(x, gamma, beta, eps):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return (x - mean) / numpy.sqrt(var + eps) * gamma + beta


def test_defaults_are_lazy_ones_and_zeros_with_eps_1e6():
    link = LayerNormalization()
    assert link.eps == 1e-6
    assert link.gamma.array is None and link.beta.array is None
    assert sorted(name for name, _ in link.namedparams()) == ["/beta", "/gamma"]
    x = numpy.random.rand(2, 5).astype(numpy.float32)
    link(x)
    numpy.testing.assert_array_equal(link.gamma.array, numpy.ones(5, numpy.float32))
    numpy.testing.assert_array_equal(link.beta.array, numpy.zeros(5, numpy.float32))


def test_size_initializes_at_construction_with_given_values():
    link = LayerNormalization(4, initial_gamma=2.0, initial_beta=-1.0)
    assert (link.gamma.array == 2).all() and (link.beta.array == -1).all()
    assert link.gamma.dtype == numpy.float32


def test_config_dtype_sets_parameter_dtype():
    with chainer.using_config("dtype", numpy.float64):
        link = LayerNormalization(3)
    assert link.gamma.dtype == numpy.float64 and link.beta.dtype == numpy.float64


def test_array_gamma_with_lazy_beta_initializes_beta_on_first_call():
    link = LayerNormalization(initial_gamma=numpy.full(3, 2, numpy.float32))
    assert link.gamma.shape == (3,) and link.beta.array is None
    link(numpy.random.rand(2, 3).astype(numpy.float32))
    assert link.beta.shape == (3,)


def test_output_matches_numpy():
    link = LayerNormalization(5, eps=1e-3)
    link.gamma.array[...] = numpy.random.rand(5)
    link.beta.array[...] = numpy.random.rand(5)
    x = numpy.random.rand(3, 5).astype(numpy.float32)
    expected = _layer_norm_reference(x, link.gamma.array, link.beta.array, 1e-3)
    numpy.testing.assert_allclose(link(x).array, expected, rtol=1e-4, atol=1e-5)


def test_non_matrix_input_raises_invalid_type():
    with pytest.raises(type_check.InvalidType):
        LayerNormalization()(numpy.ones((2, 3, 4), numpy.float32))


def test_backward_matches_numerical_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = LayerNormalization(4)
    link.gamma.array[...] = numpy.random.uniform(0.5, 1.5, 4)
    link.beta.array[...] = numpy.random.uniform(-1, 1, 4)
    x = numpy.random.uniform(-1, 1, (3, 4))
    gy = numpy.random.uniform(-1, 1, (3, 4))
    gradient_check.check_backward(link, x, gy, (link.gamma, link.beta), dtype=numpy.float64,
                                  atol=1e-4, rtol=1e-3)


def test_npz_round_trip_fills_lazy_link(tmp_path):
    source = LayerNormalization(3, initial_gamma=2.0, initial_beta=0.5)
    path = tmp_path / "ln.npz"
    serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["beta", "gamma"]
    target = LayerNormalization()
    serializers.load_npz(str(path), target)
    numpy.testing.assert_array_equal(target.gamma.array, source.gamma.array)
    numpy.testing.assert_array_equal(target.beta.array, source.beta.array)


def test_copy_of_lazy_link_stays_lazy_and_independent():
    link = LayerNormalization()
    copied = link.copy("copy")
    copied(numpy.random.rand(2, 3).astype(numpy.float32))
    assert link.gamma.array is None and copied.gamma.shape == (3,)
