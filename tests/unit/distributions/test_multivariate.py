"""MultivariateNormal, Dirichlet and Independent: densities, moments, sampling, KL, gradients."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import distributions as D
from chainer_compat import gradient_check
from chainer_compat.distribution import kl_divergence

stats = pytest.importorskip("scipy.stats")


def _scale_tril(rng, batch, d):
    lower = numpy.tril(rng.uniform(-0.5, 0.5, batch + (d, d)), -1)
    return lower + numpy.eye(d) * rng.uniform(0.5, 1.5, batch + (d,))[..., None]


def test_multivariate_normal_matches_scipy():
    rng = numpy.random.RandomState(0)
    loc = rng.normal(size=(2, 3))
    tril = _scale_tril(rng, (2,), 3)
    dist = D.MultivariateNormal(loc, scale_tril=tril)
    assert dist.batch_shape == (2,) and dist.event_shape == (3,) and dist.d == 3
    x = rng.normal(size=(5, 2, 3))
    covariance = tril @ tril.swapaxes(-1, -2)
    for row in range(2):
        reference = stats.multivariate_normal(loc[row], covariance[row])
        numpy.testing.assert_allclose(dist.log_prob(x[:, row][:, None].repeat(2, 1)).array[:, row],
                                      reference.logpdf(x[:, row]), rtol=1e-10)
        numpy.testing.assert_allclose(dist.entropy.array[row], reference.entropy(), rtol=1e-10)
    numpy.testing.assert_allclose(dist.covariance.array, covariance, rtol=1e-12)
    numpy.testing.assert_allclose(dist.mean.array, loc)
    with pytest.raises(ValueError, match="scale_tril"):
        D.MultivariateNormal(loc)


def test_multivariate_normal_samples_have_the_covariance():
    rng = numpy.random.RandomState(1)
    loc = rng.normal(size=(3,))
    tril = _scale_tril(rng, (), 3)
    numpy.random.seed(0)
    samples = D.MultivariateNormal(loc, scale_tril=tril).sample((20000,)).array
    assert samples.shape == (20000, 3)
    numpy.testing.assert_allclose(samples.mean(0), loc, atol=0.05)
    numpy.testing.assert_allclose(numpy.cov(samples.T), tril @ tril.T, atol=0.08)


def test_multivariate_normal_gradients_match_numerical():
    rng = numpy.random.RandomState(2)
    loc, tril = rng.normal(size=(2, 3)), _scale_tril(rng, (2,), 3)
    loc2, tril2 = rng.normal(size=(2, 3)), _scale_tril(rng, (2,), 3)
    x = rng.normal(size=(4, 2, 3))
    # Perturbing only the lower triangle keeps scale_tril triangular, as the API requires.
    mask = numpy.tril(numpy.ones((3, 3)))

    def log_prob(mean, factor):
        return D.MultivariateNormal(mean, scale_tril=factor * mask).log_prob(x)

    gradient_check.check_backward(log_prob, (loc, tril), rng.normal(size=(4, 2)),
                                  eps=1e-6, atol=1e-6, rtol=1e-5)

    def kl(mean1, factor1, mean2, factor2):
        return kl_divergence(D.MultivariateNormal(mean1, scale_tril=factor1 * mask),
                             D.MultivariateNormal(mean2, scale_tril=factor2 * mask))

    gradient_check.check_backward(kl, (loc, tril, loc2, tril2), rng.normal(size=(2,)),
                                  eps=1e-6, atol=1e-6, rtol=1e-5)


def test_multivariate_normal_kl_matches_closed_form():
    rng = numpy.random.RandomState(3)
    loc1, loc2 = rng.normal(size=3), rng.normal(size=3)
    tril1, tril2 = _scale_tril(rng, (), 3), _scale_tril(rng, (), 3)
    cov1, cov2 = tril1 @ tril1.T, tril2 @ tril2.T
    inverse2 = numpy.linalg.inv(cov2)
    difference = loc2 - loc1
    expected = 0.5 * (numpy.trace(inverse2 @ cov1) + difference @ inverse2 @ difference - 3
                      + numpy.log(numpy.linalg.det(cov2) / numpy.linalg.det(cov1)))
    kl = kl_divergence(D.MultivariateNormal(loc1, scale_tril=tril1),
                       D.MultivariateNormal(loc2, scale_tril=tril2))
    numpy.testing.assert_allclose(kl.array, expected, rtol=1e-10)


def test_dirichlet_matches_scipy_and_samples():
    rng = numpy.random.RandomState(0)
    alpha = rng.uniform(0.8, 3.0, (2, 4))
    dist = D.Dirichlet(alpha)
    assert dist.batch_shape == (2,) and dist.event_shape == (4,)
    x = rng.dirichlet(numpy.ones(4), (5, 2))
    for row in range(2):
        reference = stats.dirichlet(alpha[row])
        numpy.testing.assert_allclose(dist.log_prob(x).array[:, row],
                                      [reference.logpdf(point) for point in x[:, row]],
                                      rtol=1e-10)
        numpy.testing.assert_allclose(dist.entropy.array[row], reference.entropy(), rtol=1e-10)
        numpy.testing.assert_allclose(dist.mean.array[row], reference.mean(), rtol=1e-10)
        numpy.testing.assert_allclose(dist.variance.array[row], reference.var(), rtol=1e-10)
    numpy.random.seed(0)
    samples = dist.sample(20000).array
    # compat: Chainer's samples are float32 even for float64 alpha.
    assert samples.shape == (20000, 2, 4) and samples.dtype == numpy.float32
    numpy.testing.assert_allclose(samples.sum(-1), 1.0, rtol=1e-6)
    numpy.testing.assert_allclose(samples.mean(0), dist.mean.array, atol=0.01)


def test_dirichlet_kl_matches_monte_carlo_and_gradient():
    rng = numpy.random.RandomState(1)
    alpha1, alpha2 = rng.uniform(1.0, 3.0, 4), rng.uniform(1.0, 3.0, 4)
    x = numpy.random.RandomState(2).dirichlet(alpha1, 200000)
    p, q = D.Dirichlet(alpha1), D.Dirichlet(alpha2)
    log_ratio = p.log_prob(x).array - q.log_prob(x).array
    tolerance = 6 * log_ratio.std() / numpy.sqrt(len(x))
    assert abs(kl_divergence(p, q).array - log_ratio.mean()) <= tolerance
    gradient_check.check_backward(
        lambda a, b: kl_divergence(D.Dirichlet(a), D.Dirichlet(b)),
        (alpha1[None], alpha2[None]), numpy.ones(1), eps=1e-6, atol=1e-6, rtol=1e-5)


def test_independent_sums_log_prob_over_reinterpreted_axes():
    rng = numpy.random.RandomState(0)
    loc, scale = rng.normal(size=(2, 3, 4)), rng.uniform(0.5, 2.0, (2, 3, 4))
    base = D.Normal(loc, scale)
    joined = D.Independent(base)
    assert joined.reinterpreted_batch_ndims == 2
    assert joined.batch_shape == (2,) and joined.event_shape == (3, 4)
    x = rng.normal(size=(5, 2, 3, 4))
    numpy.testing.assert_allclose(joined.log_prob(x).array,
                                  base.log_prob(x).array.sum(axis=(-2, -1)), rtol=1e-12)
    numpy.testing.assert_allclose(joined.prob(x).array,
                                  base.prob(x).array.prod(axis=(-2, -1)), rtol=1e-10)
    numpy.testing.assert_allclose(joined.cdf(x).array,
                                  base.cdf(x).array.prod(axis=(-2, -1)), rtol=1e-10)
    numpy.testing.assert_allclose(joined.entropy.array,
                                  base.entropy.array.sum(axis=(-2, -1)), rtol=1e-12)
    assert joined.mean is base.mean and joined.params is not None
    assert joined.sample(7).shape == (7, 2, 3, 4)
    one = D.Independent(base, reinterpreted_batch_ndims=1)
    assert one.batch_shape == (2, 3) and one.event_shape == (4,)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(base, reinterpreted_batch_ndims=4)
    with pytest.raises(RuntimeError):
        joined.icdf(x)


def test_independent_kl_and_covariance():
    rng = numpy.random.RandomState(1)
    first = D.Normal(rng.normal(size=(2, 3)), rng.uniform(0.5, 2.0, (2, 3)))
    second = D.Normal(rng.normal(size=(2, 3)), rng.uniform(0.5, 2.0, (2, 3)))
    kl = kl_divergence(D.Independent(first), D.Independent(second))
    numpy.testing.assert_allclose(kl.array, kl_divergence(first, second).array.sum(-1),
                                  rtol=1e-12)
    with pytest.raises(ValueError, match="equal event shapes"):
        kl_divergence(D.Independent(first, 1), D.Independent(first, 0))

    loc = rng.normal(size=(2, 3, 2))
    tril = _scale_tril(rng, (2, 3), 2)
    joined = D.Independent(D.MultivariateNormal(loc, scale_tril=tril))
    covariance = joined.covariance.array
    assert covariance.shape == (2, 6, 6)
    blocks = tril @ tril.swapaxes(-1, -2)
    for row in range(2):
        expected = numpy.zeros((6, 6))
        for block in range(3):
            expected[2 * block:2 * block + 2, 2 * block:2 * block + 2] = blocks[row, block]
        numpy.testing.assert_allclose(covariance[row], expected, rtol=1e-12)


def test_independent_log_prob_gradient_flows_to_base_parameters():
    loc = chainer.Variable(numpy.zeros((2, 3)))
    joined = D.Independent(D.Normal(loc, numpy.ones((2, 3))))
    chainer.functions.sum(joined.log_prob(numpy.ones((2, 3)))).backward()
    numpy.testing.assert_allclose(loc.grad, numpy.ones((2, 3)))


def test_log_prob_second_derivatives_match_numerical():
    rng = numpy.random.RandomState(4)
    x = rng.normal(size=(2, 3))
    mask = numpy.tril(numpy.ones((3, 3)))
    loc, tril = rng.normal(size=(3,)), _scale_tril(rng, (), 3)
    gradient_check.check_double_backward(
        lambda mean, factor: D.MultivariateNormal(mean, scale_tril=factor * mask).log_prob(x),
        (loc, tril), rng.normal(size=(2,)), (rng.normal(size=(3,)), rng.normal(size=(3, 3))),
        eps=1e-5, atol=1e-5, rtol=1e-4)
    logit = rng.normal(size=(2, 3))
    binary = rng.randint(0, 2, (2, 3)).astype(numpy.float64)
    gradient_check.check_double_backward(
        lambda value: D.Bernoulli(logit=value).log_prob(binary), logit,
        rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), eps=1e-5, atol=1e-5, rtol=1e-4)
    loc, scale = rng.normal(size=(2, 3)), rng.uniform(0.5, 2.0, (2, 3))
    gradient_check.check_double_backward(
        lambda mean, width: D.Laplace(mean, width).cdf(x), (loc, scale),
        rng.normal(size=(2, 3)), (rng.normal(size=(2, 3)), rng.normal(size=(2, 3))),
        eps=1e-5, atol=1e-5, rtol=1e-4)
