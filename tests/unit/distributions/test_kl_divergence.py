"""Registered KL divergences against Monte-Carlo estimates or exact sums, and their gradients."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import distributions as D
from chainer_compat import gradient_check
from chainer_compat.distribution import kl_divergence

stats = pytest.importorskip("scipy.stats")

SHAPE = (3,)
DRAWS = 200000


def _positive(rng, low=0.5, high=2.0):
    return rng.uniform(low, high, SHAPE)


# name -> (make parameters of p or q, build ours, draw from scipy's p with a seeded generator)
CONTINUOUS = {
    "normal": (lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
               lambda p: D.Normal(p["loc"], p["scale"]),
               lambda p, n, rng: stats.norm(p["loc"], p["scale"]).rvs((n,) + SHAPE, rng)),
    "laplace": (lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
                lambda p: D.Laplace(p["loc"], p["scale"]),
                lambda p, n, rng: stats.laplace(p["loc"], p["scale"]).rvs((n,) + SHAPE, rng)),
    "gumbel": (lambda rng: {"loc": rng.normal(size=SHAPE), "scale": _positive(rng)},
               lambda p: D.Gumbel(p["loc"], p["scale"]),
               lambda p, n, rng: stats.gumbel_r(p["loc"], p["scale"]).rvs((n,) + SHAPE, rng)),
    "exponential": (lambda rng: {"lam": _positive(rng)},
                    lambda p: D.Exponential(p["lam"]),
                    lambda p, n, rng: stats.expon(scale=1 / p["lam"]).rvs((n,) + SHAPE, rng)),
    "gamma": (lambda rng: {"k": _positive(rng, 1.0, 3.0), "theta": _positive(rng)},
              lambda p: D.Gamma(p["k"], p["theta"]),
              lambda p, n, rng: stats.gamma(p["k"], scale=p["theta"]).rvs((n,) + SHAPE, rng)),
    "beta": (lambda rng: {"a": _positive(rng, 1.5, 3.0), "b": _positive(rng, 1.5, 3.0)},
             lambda p: D.Beta(p["a"], p["b"]),
             lambda p, n, rng: stats.beta(p["a"], p["b"]).rvs((n,) + SHAPE, rng)),
    "log_normal": (lambda rng: {"mu": rng.normal(size=SHAPE) * 0.3,
                                "sigma": _positive(rng, 0.4, 0.8)},
                   lambda p: D.LogNormal(p["mu"], p["sigma"]),
                   lambda p, n, rng: stats.lognorm(p["sigma"], scale=numpy.exp(p["mu"])).rvs(
                       (n,) + SHAPE, rng)),
    "pareto": (lambda rng: {"scale": _positive(rng, 0.2, 0.5), "alpha": _positive(rng, 3.0, 5.0)},
               lambda p: D.Pareto(p["scale"], p["alpha"]),
               lambda p, n, rng: stats.pareto(p["alpha"], scale=p["scale"]).rvs(
                   (n,) + SHAPE, rng)),
    "uniform": (lambda rng: {"low": rng.uniform(-1.0, -0.5, SHAPE),
                             "high": rng.uniform(0.5, 1.0, SHAPE)},
                lambda p: D.Uniform(low=p["low"], high=p["high"]),
                lambda p, n, rng: stats.uniform(p["low"], p["high"] - p["low"]).rvs(
                    (n,) + SHAPE, rng)),
}


def _pair(name, seed=0):
    make_params, ours, draw = CONTINUOUS[name]
    rng = numpy.random.RandomState(seed)
    first, second = make_params(rng), make_params(rng)
    if name == "pareto":
        # KL(p || q) is finite only where q's support covers p's.
        second["scale"] = first["scale"] * 0.5
    if name == "uniform":
        second = {"low": first["low"] - 0.5, "high": first["high"] + 0.5}
    return first, second, ours, draw


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_kl_matches_monte_carlo(name):
    first, second, ours, draw = _pair(name)
    p, q = ours(first), ours(second)
    x = draw(first, DRAWS, numpy.random.RandomState(1))
    log_ratio = p.log_prob(x).array - q.log_prob(x).array
    estimate = log_ratio.mean(axis=0)
    tolerance = 6 * log_ratio.std(axis=0) / numpy.sqrt(DRAWS) + 1e-6
    kl = kl_divergence(p, q).array
    assert kl.shape == SHAPE
    assert (numpy.abs(kl - estimate) <= tolerance).all(), (kl, estimate, tolerance)


@pytest.mark.parametrize("name", sorted(set(CONTINUOUS) - {"uniform", "pareto"}))
def test_kl_gradient_matches_numerical(name):
    first, second, ours, _ = _pair(name)
    keys = sorted(first)

    def kl(*values):
        half = len(keys)
        return kl_divergence(ours(dict(zip(keys, values[:half], strict=True))),
                             ours(dict(zip(keys, values[half:], strict=True))))

    inputs = tuple(first[key] for key in keys) + tuple(second[key] for key in keys)
    gradient_check.check_backward(kl, inputs, numpy.random.RandomState(5).normal(size=SHAPE),
                                  eps=1e-6, atol=1e-6, rtol=1e-5)


def test_kl_of_a_distribution_with_itself_is_zero():
    for name in sorted(CONTINUOUS):
        first, _, ours, _ = _pair(name)
        numpy.testing.assert_allclose(kl_divergence(ours(first), ours(first)).array, 0.0,
                                      atol=1e-12, err_msg=name)


def test_uniform_and_pareto_kl_are_infinite_outside_the_support():
    wide = D.Uniform(low=numpy.array([-2.0]), high=numpy.array([2.0]))
    narrow = D.Uniform(low=numpy.array([-1.0]), high=numpy.array([1.0]))
    assert numpy.isposinf(kl_divergence(wide, narrow).array).all()
    numpy.testing.assert_allclose(kl_divergence(narrow, wide).array, [numpy.log(2.0)])
    small = D.Pareto(numpy.array([1.0]), numpy.array([2.0]))
    large = D.Pareto(numpy.array([2.0]), numpy.array([2.0]))
    assert numpy.isposinf(kl_divergence(small, large).array).all()


def _exact_discrete_kl(log_p, log_q):
    return (numpy.exp(log_p) * (log_p - log_q)).sum(axis=0)


def test_discrete_kl_matches_exact_sums():
    rng = numpy.random.RandomState(0)
    p1, p2 = rng.uniform(0.1, 0.9, SHAPE), rng.uniform(0.1, 0.9, SHAPE)
    values = numpy.array([0.0, 1.0])[:, None]
    expected = _exact_discrete_kl(stats.bernoulli(p1).logpmf(values),
                                  stats.bernoulli(p2).logpmf(values))
    numpy.testing.assert_allclose(
        kl_divergence(D.Bernoulli(p=p1), D.Bernoulli(p=p2)).array, expected, rtol=1e-10)

    counts = numpy.arange(0, 200)[:, None]
    lam1, lam2 = rng.uniform(0.5, 3.0, SHAPE), rng.uniform(0.5, 3.0, SHAPE)
    expected = _exact_discrete_kl(stats.poisson(lam1).logpmf(counts),
                                  stats.poisson(lam2).logpmf(counts))
    numpy.testing.assert_allclose(kl_divergence(D.Poisson(lam1), D.Poisson(lam2)).array,
                                  expected, rtol=1e-10)

    trials = numpy.arange(1, 400)[:, None]
    expected = _exact_discrete_kl(stats.geom(p1).logpmf(trials), stats.geom(p2).logpmf(trials))
    numpy.testing.assert_allclose(kl_divergence(D.Geometric(p1), D.Geometric(p2)).array,
                                  expected, rtol=1e-8)

    probs1 = rng.dirichlet(numpy.ones(4), SHAPE)
    probs2 = rng.dirichlet(numpy.ones(4), SHAPE)
    expected = (probs1 * numpy.log(probs1 / probs2)).sum(-1)
    numpy.testing.assert_allclose(
        kl_divergence(D.Categorical(probs1), D.Categorical(probs2)).array, expected, rtol=1e-10)
    numpy.testing.assert_allclose(
        kl_divergence(D.OneHotCategorical(probs1), D.OneHotCategorical(probs2)).array,
        expected, rtol=1e-10)


def test_discrete_kl_gradients_match_numerical():
    rng = numpy.random.RandomState(3)
    grad = rng.normal(size=SHAPE)
    gradient_check.check_backward(
        lambda a, b: kl_divergence(D.Bernoulli(logit=a), D.Bernoulli(logit=b)),
        (rng.normal(size=SHAPE), rng.normal(size=SHAPE)), grad, eps=1e-6, atol=1e-7, rtol=1e-6)
    gradient_check.check_backward(
        lambda a, b: kl_divergence(D.Categorical(logit=a), D.Categorical(logit=b)),
        (rng.normal(size=SHAPE + (4,)), rng.normal(size=SHAPE + (4,))), grad,
        eps=1e-6, atol=1e-7, rtol=1e-6)
    gradient_check.check_backward(
        lambda a, b: kl_divergence(D.Poisson(a), D.Poisson(b)),
        (rng.uniform(0.5, 2.0, SHAPE), rng.uniform(0.5, 2.0, SHAPE)), grad,
        eps=1e-6, atol=1e-7, rtol=1e-6)
    gradient_check.check_backward(
        lambda a, b: kl_divergence(D.Geometric(a), D.Geometric(b)),
        (rng.uniform(0.2, 0.8, SHAPE), rng.uniform(0.2, 0.8, SHAPE)), grad,
        eps=1e-6, atol=1e-6, rtol=1e-5)
