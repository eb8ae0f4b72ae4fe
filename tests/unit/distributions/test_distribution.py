"""The ``Distribution`` base class, ``register_kl``, ``kl_divergence`` and ``cross_entropy``."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import distribution
from chainer_compat import distributions as D


class _Counting(distribution.Distribution):
    """Samples ``n`` copies of a fixed batch so reshaping can be checked exactly."""

    def __init__(self, batch_shape, event_shape):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        self.requested = []

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def params(self):
        return {"x": chainer.Variable(numpy.zeros(self._batch_shape))}

    def sample_n(self, n):
        self.requested.append(n)
        size = int(numpy.prod(self._batch_shape + self._event_shape))
        return chainer.Variable(numpy.arange(n * size, dtype=numpy.float64)
                                .reshape((n,) + self._batch_shape + self._event_shape))


@pytest.mark.parametrize(("sample_shape", "count", "leading"), [
    ((), 1, ()), (4, 4, (4,)), ((2, 3), 6, (2, 3)), ([2, 3], 6, (2, 3))])
def test_sample_draws_the_product_of_sample_shape_and_reshapes(sample_shape, count, leading):
    dist = _Counting((2,), (3,))
    samples = dist.sample(sample_shape)
    assert dist.requested == [count]
    assert samples.shape == leading + (2, 3)


def test_unimplemented_members_raise_not_implemented_error():
    dist = distribution.Distribution()
    for name in ("batch_shape", "event_shape", "covariance", "entropy", "mean", "mode",
                 "stddev", "variance", "params", "support"):
        with pytest.raises(NotImplementedError):
            getattr(dist, name)
    for name in ("cdf", "log_cdf", "icdf", "survival_function", "log_survival_function",
                 "log_prob", "prob", "perplexity"):
        with pytest.raises(NotImplementedError):
            getattr(dist, name)(numpy.zeros(1))
    with pytest.raises(NotImplementedError):
        dist.sample_n(1)


def test_xp_is_the_array_module_of_the_parameters():
    assert _Counting((2,), ()).xp is numpy
    assert D.Normal(numpy.zeros(2), numpy.ones(2)).xp is numpy


def test_register_kl_dispatches_on_exact_classes_and_returns_the_function():
    class First(_Counting):
        pass

    class Second(_Counting):
        pass

    def kl(dist1, dist2):
        return chainer.Variable(numpy.array(float(len(dist1.batch_shape))))

    assert distribution.register_kl(First, Second)(kl) is kl
    try:
        result = distribution.kl_divergence(First((2,), ()), Second((2,), ()))
        assert float(result.array) == 1.0
        with pytest.raises(KeyError, match="register_kl"):
            distribution.kl_divergence(Second((2,), ()), First((2,), ()))
    finally:
        del distribution._KLDIVERGENCE[First, Second]


def test_kl_divergence_of_unregistered_pair_raises_key_error_naming_both():
    normal = D.Normal(numpy.zeros(1), numpy.ones(1))
    laplace = D.Laplace(numpy.zeros(1), numpy.ones(1))
    with pytest.raises(KeyError, match=r"\(Normal, Laplace\)"):
        distribution.kl_divergence(normal, laplace)


def test_cross_entropy_is_entropy_plus_kl():
    first = D.Normal(numpy.array([0.0, 1.0]), numpy.array([1.0, 2.0]))
    second = D.Normal(numpy.array([0.5, -1.0]), numpy.array([1.5, 0.5]))
    expected = first.entropy.array + distribution.kl_divergence(first, second).array
    numpy.testing.assert_allclose(distribution.cross_entropy(first, second).array, expected)
    # H(p, q) = -E_p[log q], here in closed form for normals.
    closed = (0.5 * numpy.log(2 * numpy.pi * second.variance.array)
              + (first.variance.array + (first.loc.array - second.loc.array) ** 2)
              / (2 * second.variance.array))
    numpy.testing.assert_allclose(distribution.cross_entropy(first, second).array, closed)


def test_cached_statistics_are_kept_per_backprop_mode():
    loc = chainer.Variable(numpy.zeros(2))
    dist = D.Normal(loc, numpy.ones(2))
    assert dist.mean is dist.mean
    with chainer.no_backprop_mode():
        no_graph = dist.entropy
        assert dist.entropy is no_graph
    with_graph = dist.entropy
    assert with_graph is not no_graph
    assert with_graph.creator is not None and no_graph.creator is None
    with pytest.raises(AttributeError, match="read-only"):
        dist.entropy = None


def test_every_class_of_chainer_has_its_kl_pair_registered():
    expected = {"Bernoulli", "Beta", "Categorical", "Dirichlet", "Exponential", "Gamma",
                "Geometric", "Gumbel", "Independent", "Laplace", "LogNormal",
                "MultivariateNormal", "Normal", "OneHotCategorical", "Pareto", "Poisson",
                "Uniform"}
    registered = {(first.__name__, second.__name__)
                  for first, second in distribution._KLDIVERGENCE
                  if first.__module__.startswith("chainer_compat.distributions")}
    assert registered == {(name, name) for name in expected}


def test_modules_are_at_chainers_paths():
    for name in D.__all__:
        value = getattr(D, name)
        if isinstance(value, type):
            module = value.__module__.rsplit(".", 1)[1]
            assert getattr(D, module) is not None
            assert getattr(getattr(D, module), name) is value
