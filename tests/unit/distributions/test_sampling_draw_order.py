"""Samples drawn under a seed are the ones Chainer drew: its generators, its order, its noise
precision (so a seeded Chainer program samples the same numbers here)."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import distributions as D


def _rows(shape, k, seed):
    p = numpy.random.RandomState(seed).uniform(0.1, 1.0, shape + (k,))
    return (p / p.sum(axis=-1, keepdims=True)).astype(numpy.float32)


@pytest.mark.parametrize("batch_shape", [(), (3,), (2, 2)])
def test_categorical_samples_are_choice_row_by_row(batch_shape):
    p = _rows(batch_shape, 4, 1)
    numpy.random.seed(7)
    samples = D.Categorical(p).sample(5).array
    numpy.random.seed(7)
    rows = p.reshape(-1, 4)
    expected = numpy.stack([numpy.random.choice(4, 5, p=row.astype(numpy.float64)) for row in rows],
                           axis=1).reshape((5,) + batch_shape)
    numpy.testing.assert_array_equal(samples, expected)


def test_one_hot_categorical_samples_are_the_same_draws_one_hot():
    p = _rows((3,), 4, 2)
    numpy.random.seed(3)
    indices = D.Categorical(p).sample(6).array
    numpy.random.seed(3)
    one_hot = D.OneHotCategorical(p).sample(6).array
    numpy.testing.assert_array_equal(one_hot, numpy.eye(4, dtype=numpy.float32)[indices])


@pytest.mark.parametrize("batch_shape", [(), (3,), (2, 2)])
def test_dirichlet_samples_are_numpy_dirichlet_row_by_row_in_float32(batch_shape):
    alpha = numpy.random.RandomState(4).uniform(0.5, 3.0, batch_shape + (3,))
    numpy.random.seed(11)
    samples = D.Dirichlet(alpha).sample(4).array
    numpy.random.seed(11)
    expected = numpy.stack(
        [numpy.random.dirichlet(row, 4).astype(numpy.float32) for row in alpha.reshape(-1, 3)],
        axis=1).reshape((4,) + alpha.shape)
    assert samples.dtype == numpy.float32
    numpy.testing.assert_array_equal(samples, expected)


def test_dirichlet_of_an_empty_batch_samples_nothing():
    samples = D.Dirichlet(numpy.ones((0, 3), numpy.float32)).sample(2).array
    assert samples.shape == (2, 0, 3) and samples.dtype == numpy.float32


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_laplace_noise_is_rounded_to_float32_whatever_the_dtype(dtype):
    loc, scale = numpy.array([0.5, -1.0], dtype), numpy.array([2.0, 0.25], dtype)
    numpy.random.seed(5)
    samples = D.Laplace(loc, scale).sample(3).array
    numpy.random.seed(5)
    noise = numpy.random.laplace(size=(3, 2)).astype(numpy.float32).astype(dtype)
    assert samples.dtype == dtype
    numpy.testing.assert_array_equal(samples, scale * noise + loc)


def test_multivariate_normal_noise_is_rounded_to_float32_for_float64_parameters():
    loc = numpy.array([1.0, -2.0])
    scale_tril = numpy.array([[2.0, 0.0], [0.5, 1.5]])
    numpy.random.seed(9)
    samples = D.MultivariateNormal(loc, scale_tril=scale_tril).sample(4).array
    numpy.random.seed(9)
    noise = numpy.random.standard_normal((4, 2, 1)).astype(numpy.float32).astype(numpy.float64)
    assert samples.dtype == numpy.float64
    numpy.testing.assert_allclose(samples, loc + (scale_tril @ noise)[..., 0], rtol=1e-15)
