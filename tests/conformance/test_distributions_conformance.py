"""Chainer-visible behaviour of ``chainer.distributions`` and ``chainer.distribution`` (shapes,
parameters, statistics, KL divergences, sampling, errors). Each case was checked against Chainer
7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself. Chainer's venv
has no SciPy, so nothing here needs lgamma, digamma or a triangular solve on the CPU.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
D = importlib.import_module(chainer.__name__ + ".distributions")
distribution = importlib.import_module(chainer.__name__ + ".distribution")
F = importlib.import_module(chainer.__name__ + ".functions")

MODULES = ["bernoulli", "beta", "categorical", "cauchy", "chisquare", "dirichlet", "exponential",
           "gamma", "geometric", "gumbel", "independent", "laplace", "log_normal",
           "multivariate_normal", "normal", "one_hot_categorical", "pareto", "poisson",
           "uniform", "utils"]
CLASSES = {"Bernoulli": "bernoulli", "Beta": "beta", "Categorical": "categorical",
           "Cauchy": "cauchy", "Chisquare": "chisquare", "Dirichlet": "dirichlet",
           "Exponential": "exponential", "Gamma": "gamma", "Geometric": "geometric",
           "Gumbel": "gumbel", "Independent": "independent", "Laplace": "laplace",
           "LogNormal": "log_normal", "MultivariateNormal": "multivariate_normal",
           "Normal": "normal", "OneHotCategorical": "one_hot_categorical", "Pareto": "pareto",
           "Poisson": "poisson", "Uniform": "uniform"}


def _f32(*values):
    return numpy.asarray(values, dtype=numpy.float32)


@pytest.mark.parametrize(("name", "module"), sorted(CLASSES.items()))
def test_classes_live_in_chainers_modules_and_subclass_distribution(name, module):
    cls = getattr(D, name)
    assert getattr(importlib.import_module(f"{D.__name__}.{module}"), name) is cls
    assert issubclass(cls, distribution.Distribution)


@pytest.mark.parametrize(("name", "parameters"), [
    ("Normal", ["self", "loc", "scale", "kwargs"]),
    ("Bernoulli", ["self", "p", "logit", "binary_check"]),
    ("Categorical", ["self", "p", "kwargs"]),
    ("Uniform", ["self", "kwargs"]),
    ("MultivariateNormal", ["self", "loc", "kwargs"]),
    ("Independent", ["self", "distribution", "reinterpreted_batch_ndims"]),
    ("Beta", ["self", "a", "b"]), ("Gamma", ["self", "k", "theta"]),
    ("LogNormal", ["self", "mu", "sigma"]), ("Pareto", ["self", "scale", "alpha"]),
    ("Exponential", ["self", "lam"]), ("Poisson", ["self", "lam"]),
])
def test_constructor_parameter_names(name, parameters):
    signature = inspect.signature(getattr(D, name).__init__)
    assert list(signature.parameters) == parameters


def test_every_module_is_importable_at_chainers_path():
    for module in MODULES:
        assert importlib.import_module(f"{D.__name__}.{module}") is getattr(D, module)


def test_statistics_are_properties_and_probabilities_are_methods():
    dist = D.Normal(_f32(0.0, 1.0), _f32(1.0, 2.0))
    for name in ("entropy", "mean", "variance", "stddev"):
        assert isinstance(getattr(dist, name), chainer.Variable)
    assert dist.support == "real"
    assert dist.batch_shape == (2,) and dist.event_shape == ()
    assert set(dist.params) == {"loc", "scale"}


def test_normal_log_prob_cdf_entropy_follow_the_formulas():
    loc, scale = _f32(0.0, 1.0, -1.0), _f32(1.0, 0.5, 2.0)
    x = _f32(0.3, 1.2, 0.0)
    dist = D.Normal(loc, scale)
    z = (x - loc) / scale
    expected = -0.5 * math.log(2 * math.pi) - numpy.log(scale) - 0.5 * z ** 2
    numpy.testing.assert_allclose(dist.log_prob(x).array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(dist.prob(x).array, numpy.exp(expected), rtol=1e-5)
    erf = numpy.vectorize(math.erf)
    numpy.testing.assert_allclose(dist.cdf(x).array, 0.5 * (1 + erf(z / math.sqrt(2))),
                                  rtol=1e-5)
    numpy.testing.assert_allclose(dist.entropy.array,
                                  0.5 * numpy.log(2 * math.pi * math.e * scale ** 2), rtol=1e-5)
    by_log = D.Normal(loc, log_scale=numpy.log(scale))
    numpy.testing.assert_allclose(by_log.scale.array, scale, rtol=1e-6)


def test_normal_refuses_neither_or_both_scales_with_value_error():
    with pytest.raises(ValueError):
        D.Normal(_f32(0.0))
    with pytest.raises(ValueError):
        D.Normal(_f32(0.0), _f32(1.0), log_scale=_f32(0.0))


def test_normal_sample_is_reparameterized_and_shaped():
    loc = chainer.Variable(_f32(0.0, 1.0))
    dist = D.Normal(loc, _f32(1.0, 2.0))
    assert dist.sample().shape == (2,)
    assert dist.sample(3).shape == (3, 2)
    samples = dist.sample((4, 5))
    assert samples.shape == (4, 5, 2) and samples.dtype == numpy.float32
    F.sum(samples).backward()
    numpy.testing.assert_allclose(loc.grad, [20.0, 20.0])


def test_normal_kl_follows_the_closed_form():
    first = D.Normal(_f32(0.0, 1.0), _f32(1.0, 2.0))
    second = D.Normal(_f32(0.5, -1.0), _f32(1.5, 0.5))
    expected = (numpy.log(_f32(1.5, 0.5) / _f32(1.0, 2.0))
                + (_f32(1.0, 4.0) + _f32(0.5, 2.0) ** 2) / (2 * _f32(2.25, 0.25)) - 0.5)
    numpy.testing.assert_allclose(distribution.kl_divergence(first, second).array, expected,
                                  rtol=1e-5)


def test_kl_divergence_of_unregistered_pair_raises_key_error():
    with pytest.raises(KeyError):
        distribution.kl_divergence(D.Normal(_f32(0.0), _f32(1.0)),
                                   D.Laplace(_f32(0.0), _f32(1.0)))


def test_register_kl_makes_kl_divergence_call_the_function():
    class Mine(distribution.Distribution):
        pass

    calls = []

    def kl(dist1, dist2):
        calls.append((dist1, dist2))
        return chainer.Variable(_f32(0.25))

    distribution.register_kl(Mine, Mine)(kl)
    try:
        first, second = Mine(), Mine()
        assert float(distribution.kl_divergence(first, second).array[0]) == 0.25
        assert calls == [(first, second)]
    finally:
        distribution._KLDIVERGENCE.pop((Mine, Mine), None)


def test_bernoulli_log_prob_params_and_binary_check():
    p = _f32(0.2, 0.7)
    dist = D.Bernoulli(p=p)
    x = _f32(1.0, 0.0)
    numpy.testing.assert_allclose(dist.log_prob(x).array, numpy.log(_f32(0.2, 0.3)), rtol=1e-5)
    assert set(dist.params) == {"logit"}
    assert dist.support == "{0, 1}"
    numpy.testing.assert_allclose(dist.logit.array, numpy.log(p / (1 - p)), rtol=1e-5)
    checked = D.Bernoulli(p=p, binary_check=True)
    assert numpy.isneginf(checked.log_prob(_f32(0.5, 1.0)).array[0])
    with pytest.raises(ValueError):
        D.Bernoulli()
    entropy = -(p * numpy.log(p) + (1 - p) * numpy.log(1 - p))
    numpy.testing.assert_allclose(dist.entropy.array, entropy, rtol=1e-5)
    samples = dist.sample(6)
    assert samples.shape == (6, 2)
    assert set(numpy.unique(samples.array)) <= {0, 1}


def test_bernoulli_kl_follows_the_formula():
    p1, p2 = _f32(0.2, 0.7), _f32(0.6, 0.5)
    expected = p1 * numpy.log(p1 / p2) + (1 - p1) * numpy.log((1 - p1) / (1 - p2))
    kl = distribution.kl_divergence(D.Bernoulli(p=p1), D.Bernoulli(p=p2))
    numpy.testing.assert_allclose(kl.array, expected, rtol=1e-4)


def test_categorical_shapes_log_prob_and_kl():
    p = numpy.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], numpy.float32)
    dist = D.Categorical(p)
    assert dist.batch_shape == (2,) and dist.event_shape == ()
    x = numpy.array([[2, 0], [1, 1]], numpy.int32)
    numpy.testing.assert_allclose(dist.log_prob(x).array, numpy.log(p[[0, 1], x]), rtol=1e-5)
    numpy.testing.assert_allclose(dist.entropy.array, -(p * numpy.log(p)).sum(-1), rtol=1e-5)
    assert set(dist.params) == {"p"}
    by_logit = D.Categorical(logit=numpy.log(p) + 3)
    numpy.testing.assert_allclose(by_logit.p.array, p, rtol=1e-5)
    q = p[::-1].copy()
    kl = distribution.kl_divergence(dist, D.Categorical(q))
    numpy.testing.assert_allclose(kl.array, (p * numpy.log(p / q)).sum(-1), rtol=1e-5)
    samples = dist.sample((3, 4))
    assert samples.shape == (3, 4, 2)
    assert samples.array.min() >= 0 and samples.array.max() <= 2


def test_one_hot_categorical_shapes_and_samples():
    p = numpy.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], numpy.float32)
    dist = D.OneHotCategorical(p)
    assert dist.batch_shape == (2,) and dist.event_shape == (3,)
    samples = dist.sample(5)
    assert samples.shape == (5, 2, 3) and samples.dtype == numpy.float32
    assert (samples.array.sum(-1) == 1).all()
    numpy.testing.assert_allclose(dist.log_prob(samples).array,
                                  (numpy.log(p) * samples.array).sum(-1), rtol=1e-5)


def test_uniform_keywords_log_prob_cdf_and_kl():
    low, high = _f32(0.0, -1.0), _f32(2.0, 3.0)
    dist = D.Uniform(low=low, high=high)
    assert set(dist.params) == {"low", "high"} and dist.support == "[low, high]"
    values = dist.log_prob(_f32(1.0, 5.0)).array
    numpy.testing.assert_allclose(values[0], -math.log(2.0), rtol=1e-6)
    assert numpy.isneginf(values[1])
    numpy.testing.assert_allclose(dist.cdf(_f32(1.0, 5.0)).array, [0.5, 1.0], rtol=1e-6)
    numpy.testing.assert_allclose(dist.variance.array, (high - low) ** 2 / 12, rtol=1e-6)
    by_loc = D.Uniform(loc=low, scale=high - low)
    assert set(by_loc.params) == {"loc", "scale"}
    numpy.testing.assert_allclose(by_loc.high.array, high)
    with pytest.raises(ValueError):
        D.Uniform(low=low)
    wider = D.Uniform(low=low - 1, high=high + 1)
    numpy.testing.assert_allclose(distribution.kl_divergence(dist, wider).array,
                                  numpy.log((high - low + 2) / (high - low)), rtol=1e-5)
    assert numpy.isposinf(distribution.kl_divergence(wider, dist).array).all()


def test_exponential_laplace_gumbel_log_normal_follow_their_formulas():
    x = _f32(0.5, 1.5)
    lam = _f32(1.0, 2.0)
    numpy.testing.assert_allclose(D.Exponential(lam).log_prob(x).array,
                                  numpy.log(lam) - lam * x, rtol=1e-5)
    numpy.testing.assert_allclose(D.Exponential(lam).cdf(x).array, 1 - numpy.exp(-lam * x),
                                  rtol=1e-5)
    loc, scale = _f32(0.0, 1.0), _f32(1.0, 0.5)
    numpy.testing.assert_allclose(D.Laplace(loc, scale).log_prob(x).array,
                                  -numpy.log(2 * scale) - numpy.abs(x - loc) / scale, rtol=1e-5)
    z = (x - loc) / scale
    numpy.testing.assert_allclose(D.Gumbel(loc, scale).log_prob(x).array,
                                  -numpy.log(scale) - z - numpy.exp(-z), rtol=1e-5)
    mu, sigma = _f32(0.0, 0.5), _f32(1.0, 0.5)
    expected = (-numpy.log(x * sigma * math.sqrt(2 * math.pi))
                - (numpy.log(x) - mu) ** 2 / (2 * sigma ** 2))
    numpy.testing.assert_allclose(D.LogNormal(mu, sigma).log_prob(x).array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(D.LogNormal(mu, sigma).mean.array,
                                  numpy.exp(mu + sigma ** 2 / 2), rtol=1e-5)


def test_exponential_and_laplace_kl_follow_their_formulas():
    lam1, lam2 = _f32(1.0, 2.0), _f32(0.5, 3.0)
    numpy.testing.assert_allclose(
        distribution.kl_divergence(D.Exponential(lam1), D.Exponential(lam2)).array,
        numpy.log(lam1 / lam2) + lam2 / lam1 - 1, rtol=1e-5)
    loc1, scale1, loc2, scale2 = _f32(0.0), _f32(1.0), _f32(1.0), _f32(2.0)
    distance = numpy.abs(loc1 - loc2)
    expected = (numpy.log(scale2 / scale1) + distance / scale2
                + scale1 / scale2 * numpy.exp(-distance / scale1) - 1)
    numpy.testing.assert_allclose(
        distribution.kl_divergence(D.Laplace(loc1, scale1), D.Laplace(loc2, scale2)).array,
        expected, rtol=1e-5)


def test_multivariate_normal_shapes_covariance_and_entropy():
    loc = numpy.zeros((4, 2), numpy.float32)
    tril = numpy.tile(numpy.array([[1.0, 0.0], [0.5, 2.0]], numpy.float32), (4, 1, 1))
    dist = D.MultivariateNormal(loc, scale_tril=tril)
    assert dist.batch_shape == (4,) and dist.event_shape == (2,) and dist.d == 2
    numpy.testing.assert_allclose(dist.covariance.array, tril @ tril.transpose(0, 2, 1),
                                  rtol=1e-6)
    numpy.testing.assert_allclose(dist.entropy.array,
                                  numpy.log(2.0) + math.log(2 * math.pi * math.e), rtol=1e-5)
    assert dist.sample((3, 5)).shape == (3, 5, 4, 2)
    assert set(dist.params) == {"loc", "scale_tril"}
    with pytest.raises(ValueError):
        D.MultivariateNormal(loc)


def test_independent_reinterprets_trailing_batch_axes():
    loc = numpy.zeros((2, 3, 4), numpy.float32)
    base = D.Normal(loc, numpy.ones_like(loc))
    joined = D.Independent(base)
    assert joined.reinterpreted_batch_ndims == 2
    assert joined.batch_shape == (2,) and joined.event_shape == (3, 4)
    x = numpy.full((2, 3, 4), 0.5, numpy.float32)
    numpy.testing.assert_allclose(joined.log_prob(x).array,
                                  base.log_prob(x).array.sum(axis=(1, 2)), rtol=1e-5)
    assert D.Independent(base, 1).event_shape == (4,)
    with pytest.raises(ValueError):
        D.Independent(base, 4)
    kl = distribution.kl_divergence(joined, D.Independent(D.Normal(loc + 1, numpy.ones_like(loc))))
    numpy.testing.assert_allclose(kl.array, numpy.full(2, 0.5 * 12), rtol=1e-5)


def test_pareto_and_geometric_follow_their_formulas():
    scale, alpha = _f32(1.0, 2.0), _f32(3.0, 1.5)
    x = _f32(1.5, 1.0)
    values = D.Pareto(scale, alpha).log_prob(x).array
    numpy.testing.assert_allclose(values[0], math.log(3.0) - 4 * math.log(1.5), rtol=1e-5)
    assert numpy.isneginf(values[1])
    p = _f32(0.25, 0.5)
    trials = _f32(3.0, 1.0)
    numpy.testing.assert_allclose(D.Geometric(p).log_prob(trials).array,
                                  (trials - 1) * numpy.log(1 - p) + numpy.log(p), rtol=1e-5)
    numpy.testing.assert_allclose(D.Geometric(p).mean.array, 1 / p, rtol=1e-6)


def test_cauchy_mean_warns_and_is_nan():
    dist = D.Cauchy(_f32(0.0), _f32(1.0))
    with pytest.warns(RuntimeWarning):
        assert numpy.isnan(dist.mean.array).all()
    numpy.testing.assert_allclose(dist.cdf(_f32(1.0)).array, [0.75], rtol=1e-6)


def test_multivariate_normal_log_prob_takes_a_float64_array_in_the_parameters_dtype():
    # Unsuffixed NumPy data is float64; Chainer's x - loc casts it to loc's dtype.
    dist = D.MultivariateNormal(numpy.zeros(2, numpy.float32),
                                scale_tril=numpy.eye(2, dtype=numpy.float32))
    x = numpy.array([0.5, -0.5])
    log_prob = dist.log_prob(x)
    assert log_prob.dtype == numpy.float32
    expected = -numpy.log(2 * numpy.pi) - 0.5 * float(x @ x)
    numpy.testing.assert_allclose(float(log_prob.array), expected, rtol=1e-6)


# ------------------------------------------------ internals: ModifiedXLogX, TriangularInv
def test_modified_xlogx_is_x_log_x_with_zero_at_zero_and_warns_on_its_gradient_there():
    dutils = importlib.import_module(chainer.__name__ + ".distributions.utils")
    x = chainer.Variable(numpy.array([0.0, 0.5, 2.0]))
    y = dutils._modified_xlogx(x)
    numpy.testing.assert_allclose(y.array, [0.0, 0.5 * math.log(0.5), 2 * math.log(2.0)])
    y.grad = numpy.ones(3)
    with pytest.warns(RuntimeWarning, match="cannot calculate gradient for zero input"):
        y.backward()
    numpy.testing.assert_allclose(x.grad, [0.0, 1 + math.log(0.5), 1 + math.log(2.0)])


def test_modified_xlogx_can_be_differentiated_twice():
    dutils = importlib.import_module(chainer.__name__ + ".distributions.utils")
    x = chainer.Variable(numpy.array([0.5, 2.0]))
    gx, = chainer.grad([dutils._modified_xlogx(x)], [x], [chainer.Variable(numpy.ones(2))],
                       enable_double_backprop=True)
    ggx, = chainer.grad([gx], [x], [chainer.Variable(numpy.ones(2))])
    numpy.testing.assert_allclose(ggx.array, 1 / x.array)


@pytest.mark.parametrize("lower", [True, False])
def test_triangular_inv_reads_only_its_triangle_and_keeps_the_gradient_there(lower):
    mvn = importlib.import_module(chainer.__name__ + ".distributions.multivariate_normal")
    rng = numpy.random.RandomState(3)
    full = (rng.uniform(-1, 1, (3, 3)) + 3 * numpy.eye(3)).astype(numpy.float32)
    triangle = numpy.tril(full) if lower else numpy.triu(full)
    x = chainer.Variable(full)
    y = mvn._triangular_inv(x, lower)
    numpy.testing.assert_allclose(y.array, numpy.linalg.inv(triangle), rtol=1e-5, atol=1e-6)
    y.grad = numpy.ones((3, 3), numpy.float32)
    y.backward()
    outside = numpy.triu(numpy.ones((3, 3)), 1) if lower else numpy.tril(numpy.ones((3, 3)), -1)
    assert (x.grad[outside.astype(bool)] == 0).all()
    assert (x.grad[~outside.astype(bool)] != 0).all()


def test_triangular_inv_takes_one_float32_matrix():
    mvn = importlib.import_module(chainer.__name__ + ".distributions.multivariate_normal")
    type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")
    for bad in (numpy.eye(3), numpy.ones((2, 3, 3), numpy.float32)):
        with pytest.raises(type_check.InvalidType):
            mvn._triangular_inv(bad)


def test_multivariate_normal_reads_only_the_lower_triangle_of_scale_tril_to_invert_it():
    rng = numpy.random.RandomState(4)
    loc = rng.uniform(-1, 1, (3,)).astype(numpy.float32)
    tril = numpy.tril(rng.uniform(0.5, 1, (3, 3))).astype(numpy.float32)
    x = rng.uniform(-1, 1, (3,)).astype(numpy.float32)
    clean = D.MultivariateNormal(loc, scale_tril=tril).log_prob(x).array
    noisy_tril = tril + numpy.triu(numpy.full((3, 3), 5, numpy.float32), 1)
    noisy = D.MultivariateNormal(loc, scale_tril=noisy_tril).log_prob(x).array
    numpy.testing.assert_allclose(noisy, clean, rtol=1e-5)
