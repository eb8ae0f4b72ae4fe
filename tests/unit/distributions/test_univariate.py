"""Univariate distributions against scipy.stats: densities, cdfs, moments, sampling, gradients."""

from __future__ import annotations

import math

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import distributions as D
from chainer_compat import gradient_check

stats = pytest.importorskip("scipy.stats")

SHAPE = (2, 3)


def _positive(rng, low=0.5, high=2.0):
    return rng.uniform(low, high, SHAPE)


# name -> (make the parameters, build ours, build scipy's, draw points in the support)
CASES = {
    "normal": (
        lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
        lambda p: D.Normal(p["loc"], p["scale"]),
        lambda p: stats.norm(p["loc"], p["scale"]),
        lambda rng, p: rng.normal(size=SHAPE),
    ),
    "laplace": (
        lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
        lambda p: D.Laplace(p["loc"], p["scale"]),
        lambda p: stats.laplace(p["loc"], p["scale"]),
        lambda rng, p: rng.normal(size=SHAPE),
    ),
    "cauchy": (
        lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
        lambda p: D.Cauchy(p["loc"], p["scale"]),
        lambda p: stats.cauchy(p["loc"], p["scale"]),
        lambda rng, p: rng.normal(size=SHAPE),
    ),
    "gumbel": (
        lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
        lambda p: D.Gumbel(p["loc"], p["scale"]),
        lambda p: stats.gumbel_r(p["loc"], p["scale"]),
        lambda rng, p: rng.normal(size=SHAPE),
    ),
    "uniform": (
        lambda rng: {"low": rng.normal(size=SHAPE) - 2.0, "high": rng.normal(size=SHAPE) + 2.0},
        lambda p: D.Uniform(low=p["low"], high=p["high"]),
        lambda p: stats.uniform(p["low"], p["high"] - p["low"]),
        lambda rng, p: rng.uniform(-1.0, 1.0, SHAPE),
    ),
    "exponential": (
        lambda rng: {"lam": _positive(rng)},
        lambda p: D.Exponential(p["lam"]),
        lambda p: stats.expon(scale=1 / p["lam"]),
        lambda rng, p: _positive(rng, 0.1, 3.0),
    ),
    "gamma": (
        lambda rng: {"k": _positive(rng, 1.0, 3.0), "theta": _positive(rng)},
        lambda p: D.Gamma(p["k"], p["theta"]),
        lambda p: stats.gamma(p["k"], scale=p["theta"]),
        lambda rng, p: _positive(rng, 0.1, 3.0),
    ),
    "beta": (
        lambda rng: {"a": _positive(rng, 1.0, 3.0), "b": _positive(rng, 1.0, 3.0)},
        lambda p: D.Beta(p["a"], p["b"]),
        lambda p: stats.beta(p["a"], p["b"]),
        lambda rng, p: rng.uniform(0.1, 0.9, SHAPE),
    ),
    "log_normal": (
        lambda rng: {"mu": rng.normal(size=SHAPE) * 0.3, "sigma": _positive(rng, 0.3, 0.8)},
        lambda p: D.LogNormal(p["mu"], p["sigma"]),
        lambda p: stats.lognorm(p["sigma"], scale=numpy.exp(p["mu"])),
        lambda rng, p: _positive(rng, 0.2, 3.0),
    ),
    "chisquare": (
        lambda rng: {"k": _positive(rng, 3.0, 6.0)},
        lambda p: D.Chisquare(p["k"]),
        lambda p: stats.chi2(p["k"]),
        lambda rng, p: _positive(rng, 0.5, 5.0),
    ),
    "pareto": (
        lambda rng: {"scale": _positive(rng), "alpha": _positive(rng, 4.5, 6.0)},
        lambda p: D.Pareto(p["scale"], p["alpha"]),
        lambda p: stats.pareto(p["alpha"], scale=p["scale"]),
        lambda rng, p: p["scale"] + _positive(rng, 0.1, 2.0),
    ),
}

# Statistics whose scipy counterpart is a method of the frozen distribution.
MOMENTS = {"mean": "mean", "variance": "var", "entropy": "entropy"}
UNDEFINED_MOMENTS = {"cauchy": {"mean", "variance"}}


def _setup(name, seed=0):
    make_params, ours, theirs, points = CASES[name]
    rng = numpy.random.RandomState(seed)
    params = make_params(rng)
    return ours(params), theirs(params), points(rng, params), params


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_prob_match_scipy(name):
    dist, reference, x, _ = _setup(name)
    numpy.testing.assert_allclose(dist.log_prob(x).array, reference.logpdf(x), rtol=1e-10)
    if name in ("normal", "laplace"):
        numpy.testing.assert_allclose(dist.prob(x).array, reference.pdf(x), rtol=1e-10)


@pytest.mark.parametrize(("name", "statistic"), [
    (name, statistic) for name in sorted(CASES) for statistic in sorted(MOMENTS)
    if statistic not in UNDEFINED_MOMENTS.get(name, ())])
def test_statistic_matches_scipy(name, statistic):
    dist, reference, _, _ = _setup(name)
    expected = getattr(reference, MOMENTS[statistic])()
    numpy.testing.assert_allclose(getattr(dist, statistic).array, expected, rtol=1e-10)


@pytest.mark.parametrize("name", ["normal", "laplace", "cauchy", "uniform", "exponential"])
def test_cdf_and_icdf_match_scipy(name):
    dist, reference, x, _ = _setup(name)
    numpy.testing.assert_allclose(dist.cdf(x).array, reference.cdf(x), rtol=1e-10)
    q = numpy.random.RandomState(1).uniform(0.05, 0.95, SHAPE)
    numpy.testing.assert_allclose(dist.icdf(q).array, reference.ppf(q), rtol=1e-8)


def test_normal_log_cdf_and_survival_functions_match_scipy():
    dist, reference, x, _ = _setup("normal")
    numpy.testing.assert_allclose(dist.log_cdf(x).array, reference.logcdf(x), rtol=1e-10)
    numpy.testing.assert_allclose(dist.survival_function(x).array, reference.sf(x), rtol=1e-10)
    numpy.testing.assert_allclose(dist.log_survival_function(x).array, reference.logsf(x),
                                  rtol=1e-10)
    numpy.testing.assert_allclose(dist.stddev.array, reference.std(), rtol=1e-12)


def test_cauchy_moments_warn_and_are_nan():
    dist, _, _, _ = _setup("cauchy")
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert numpy.isnan(dist.mean.array).all()
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert numpy.isnan(dist.variance.array).all()


# log of a point outside the support warns in NumPy before the mask replaces it, as in Chainer.
@pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")
@pytest.mark.parametrize("name", ["uniform", "exponential", "gamma", "beta", "pareto"])
def test_log_prob_outside_support_is_minus_infinity(name):
    dist, reference, _, params = _setup(name)
    outside = {"uniform": lambda: params["high"] + 1.0,
               "exponential": lambda: -numpy.ones(SHAPE),
               "gamma": lambda: -numpy.ones(SHAPE),
               "beta": lambda: numpy.full(SHAPE, 1.5),
               "pareto": lambda: params["scale"] * 0.5}[name]()
    assert numpy.isneginf(dist.log_prob(outside).array).all()
    assert numpy.isneginf(reference.logpdf(outside)).all()


@pytest.mark.parametrize("name", sorted(set(CASES) - {"cauchy"}))
def test_sample_shape_dtype_and_moments(name):
    dist, reference, _, _ = _setup(name)
    numpy.random.seed(0)
    samples = dist.sample((4000, 2)).array
    assert samples.shape == (4000, 2) + SHAPE
    assert samples.dtype == numpy.float64
    flat = samples.reshape((-1,) + SHAPE)
    numpy.testing.assert_allclose(flat.mean(axis=0), reference.mean(),
                                  atol=0.1 * numpy.sqrt(reference.var()).max() + 0.02)
    assert dist.sample().shape == SHAPE
    assert dist.sample(3).shape == (3,) + SHAPE


def test_sample_keeps_float32():
    dist = D.Normal(numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float32))
    assert dist.sample_n(5).dtype == numpy.float32
    assert D.Gamma(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float32)).sample_n(
        5).dtype == numpy.float32


@pytest.mark.parametrize("name", ["normal", "laplace", "gumbel", "log_normal", "exponential",
                                  "uniform", "cauchy"])
def test_reparameterized_sample_is_differentiable(name):
    make_params, ours, _, _ = CASES[name]
    params = {key: chainer.Variable(value)
              for key, value in make_params(numpy.random.RandomState(0)).items()}
    total = chainer.functions.sum(ours(params).sample_n(3))
    total.backward()
    for value in params.values():
        assert value.grad is not None and numpy.isfinite(value.grad).all()


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_gradient_matches_numerical(name):
    make_params, ours, _, points = CASES[name]
    rng = numpy.random.RandomState(2)
    params = make_params(rng)
    x = points(rng, params)
    keys = sorted(params)

    def log_prob(*values):
        return ours(dict(zip(keys, values, strict=True))).log_prob(x)

    gradient_check.check_backward(log_prob, tuple(params[key] for key in keys),
                                  rng.normal(size=SHAPE), eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name", ["normal", "gamma", "beta", "exponential"])
def test_entropy_gradient_matches_numerical(name):
    make_params, ours, _, _ = CASES[name]
    rng = numpy.random.RandomState(3)
    params = make_params(rng)
    keys = sorted(params)

    def entropy(*values):
        return ours(dict(zip(keys, values, strict=True))).entropy

    gradient_check.check_backward(entropy, tuple(params[key] for key in keys),
                                  rng.normal(size=SHAPE), eps=1e-6, atol=1e-6, rtol=1e-5)


def test_normal_takes_log_scale_and_refuses_both_or_neither():
    loc = numpy.zeros(2)
    dist = D.Normal(loc, log_scale=numpy.log(numpy.array([1.0, 2.0])))
    numpy.testing.assert_allclose(dist.scale.array, [1.0, 2.0])
    numpy.testing.assert_allclose(dist.variance.array, [1.0, 4.0])
    with pytest.raises(ValueError, match="exactly one of `scale` and `log_scale`"):
        D.Normal(loc)
    with pytest.raises(ValueError, match="got both"):
        D.Normal(loc, numpy.ones(2), log_scale=numpy.zeros(2))
    with pytest.raises(TypeError):
        D.Normal(loc, numpy.ones(2), scal=1.0)


def test_uniform_loc_scale_form_and_errors():
    dist = D.Uniform(loc=numpy.array([1.0]), scale=numpy.array([3.0]))
    numpy.testing.assert_allclose(dist.high.array, [4.0])
    assert set(dist.params) == {"loc", "scale"}
    assert set(D.Uniform(low=numpy.zeros(1), high=numpy.ones(1)).params) == {"low", "high"}
    with pytest.raises(ValueError, match="either `low` and `high`"):
        D.Uniform(low=numpy.zeros(1))
    with pytest.raises(ValueError):
        D.Uniform(low=numpy.zeros(1), high=numpy.ones(1), loc=numpy.zeros(1),
                  scale=numpy.ones(1))


def test_pareto_moments_are_infinite_for_small_alpha():
    dist = D.Pareto(numpy.ones(2), numpy.array([0.5, 1.5]))
    mean = dist.mean.array
    assert numpy.isinf(mean[0]) and mean[1] == pytest.approx(3.0)
    assert numpy.isinf(dist.variance.array).all()


def test_support_strings():
    assert D.Normal(0.0, 1.0).support == "real"
    assert D.Exponential(numpy.ones(1)).support == "positive"
    assert D.Beta(numpy.ones(1), numpy.ones(1)).support == "[0, 1]"
    assert D.Pareto(numpy.ones(1), numpy.ones(1)).support == "[scale, inf]"
    assert math.isclose(float(D.Laplace(numpy.zeros(1), numpy.ones(1)).stddev.array[0]),
                        math.sqrt(2))
