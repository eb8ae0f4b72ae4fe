"""Discrete distributions (Bernoulli, Categorical, OneHotCategorical, Poisson, Geometric)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import distributions as D
from chainer_compat import gradient_check

stats = pytest.importorskip("scipy.stats")


def _probabilities(rng, shape, classes):
    raw = rng.uniform(0.2, 1.0, shape + (classes,))
    return raw / raw.sum(axis=-1, keepdims=True)


def test_bernoulli_from_p_and_from_logit_agree_with_scipy():
    rng = numpy.random.RandomState(0)
    p = rng.uniform(0.1, 0.9, (2, 3))
    x = rng.randint(0, 2, (4, 2, 3)).astype(numpy.float64)
    reference = stats.bernoulli(p)
    for dist in (D.Bernoulli(p=p), D.Bernoulli(logit=numpy.log(p / (1 - p)))):
        numpy.testing.assert_allclose(dist.log_prob(x).array, reference.logpmf(x), rtol=1e-10)
        numpy.testing.assert_allclose(dist.prob(x).array, reference.pmf(x), rtol=1e-10)
        numpy.testing.assert_allclose(dist.entropy.array, reference.entropy(), rtol=1e-10)
        numpy.testing.assert_allclose(dist.mean.array, p, rtol=1e-10)
        numpy.testing.assert_allclose(dist.variance.array, reference.var(), rtol=1e-10)
        numpy.testing.assert_allclose(dist.stddev.array, reference.std(), rtol=1e-10)
    assert set(D.Bernoulli(p=p).params) == {"logit"}


def test_bernoulli_entropy_is_zero_at_certain_outcomes():
    dist = D.Bernoulli(p=numpy.array([0.0, 1.0, 0.5]))
    numpy.testing.assert_allclose(dist.entropy.array, [0.0, 0.0, numpy.log(2)])


def test_bernoulli_log_prob_stays_finite_where_chainers_overflows():
    # Chainer's log(exp(-logit) + 1) overflows below about -88 in float32 (its value: -inf);
    # the stable form takes its place there.
    logit = numpy.array([-100.0, -100.0, 100.0], numpy.float32)
    x = numpy.array([1.0, 0.0, 1.0], numpy.float32)
    log_prob = D.Bernoulli(logit=logit).log_prob(x).array
    assert numpy.isfinite(log_prob).all()
    numpy.testing.assert_allclose(log_prob, [-100.0, 0.0, 0.0], atol=1e-6)


def test_bernoulli_log_prob_with_infinite_logit_is_log_of_certainty():
    dist = D.Bernoulli(logit=numpy.array([numpy.inf, -numpy.inf, numpy.inf]))
    values = dist.log_prob(numpy.array([1.0, 0.0, 0.0])).array
    assert values[0] == 0.0 and values[1] == 0.0 and numpy.isneginf(values[2])


def test_bernoulli_binary_check_rejects_non_binary_values():
    p = numpy.array([0.3, 0.3])
    x = numpy.array([0.5, 1.0])
    checked = D.Bernoulli(p=p, binary_check=True)
    assert numpy.isneginf(checked.log_prob(x).array[0])
    assert checked.prob(x).array[0] == 0.0
    numpy.testing.assert_allclose(checked.log_prob(x).array[1], numpy.log(0.3))
    relaxed = D.Bernoulli(p=p)
    assert numpy.isfinite(relaxed.log_prob(x).array).all()


def test_bernoulli_refuses_both_or_neither_parameter():
    with pytest.raises(ValueError, match="exactly one of `p` and `logit`"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="got both"):
        D.Bernoulli(p=numpy.ones(1) / 2, logit=numpy.zeros(1))


def test_bernoulli_log_prob_gradient_matches_numerical():
    rng = numpy.random.RandomState(1)
    logit = rng.normal(size=(3, 4))
    x = rng.randint(0, 2, (2, 3, 4)).astype(numpy.float64)
    gradient_check.check_backward(lambda value: D.Bernoulli(logit=value).log_prob(x), logit,
                                  rng.normal(size=(2, 3, 4)), eps=1e-6, atol=1e-7, rtol=1e-6)
    p = rng.uniform(0.2, 0.8, (3, 4))
    gradient_check.check_backward(lambda value: D.Bernoulli(p=value).log_prob(x[0]), p,
                                  rng.normal(size=(3, 4)), eps=1e-6, atol=1e-7, rtol=1e-6)


def test_bernoulli_sample_frequencies():
    numpy.random.seed(0)
    p = numpy.array([0.2, 0.7])
    samples = D.Bernoulli(p=p).sample(20000).array
    assert samples.shape == (20000, 2)
    assert set(numpy.unique(samples)) <= {0, 1}
    numpy.testing.assert_allclose(samples.mean(axis=0), p, atol=0.02)


def test_categorical_log_prob_entropy_and_params():
    rng = numpy.random.RandomState(0)
    p = _probabilities(rng, (2, 3), 4)
    x = rng.randint(0, 4, (5, 2, 3))
    for dist in (D.Categorical(p), D.Categorical(logit=numpy.log(p) + 1.5)):
        expected = numpy.take_along_axis(numpy.log(p)[None], x[..., None], axis=-1)[..., 0]
        numpy.testing.assert_allclose(dist.log_prob(x).array, expected, rtol=1e-10)
        numpy.testing.assert_allclose(dist.entropy.array, -(p * numpy.log(p)).sum(-1),
                                      rtol=1e-10)
        assert dist.batch_shape == (2, 3) and dist.event_shape == ()
        numpy.testing.assert_allclose(dist.params["p"].array, p, rtol=1e-10)
    with pytest.raises(ValueError, match="exactly one of `p` and `logit`"):
        D.Categorical()


def test_categorical_log_prob_gradient_matches_numerical():
    rng = numpy.random.RandomState(1)
    logit = rng.normal(size=(3, 4))
    x = rng.randint(0, 4, (2, 3))
    gradient_check.check_backward(lambda value: D.Categorical(logit=value).log_prob(x), logit,
                                  rng.normal(size=(2, 3)), eps=1e-6, atol=1e-7, rtol=1e-6)


def test_categorical_sample_frequencies():
    numpy.random.seed(0)
    p = numpy.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    samples = D.Categorical(p).sample((4000, 5)).array
    assert samples.shape == (4000, 5, 2)
    flat = samples.reshape(-1, 2)
    for row in range(2):
        counts = numpy.bincount(flat[:, row], minlength=3) / len(flat)
        numpy.testing.assert_allclose(counts, p[row], atol=0.02)


def test_one_hot_categorical_log_prob_moments_and_samples():
    rng = numpy.random.RandomState(0)
    p = _probabilities(rng, (2,), 3)
    dist = D.OneHotCategorical(p)
    assert dist.batch_shape == (2,) and dist.event_shape == (3,)
    x = numpy.eye(3)[rng.randint(0, 3, (4, 2))]
    expected = (numpy.log(p) * x).sum(-1)
    numpy.testing.assert_allclose(dist.log_prob(x).array, expected, rtol=1e-10)
    numpy.testing.assert_allclose(dist.variance.array, p * (1 - p), rtol=1e-10)
    numpy.random.seed(1)
    samples = dist.sample(20000).array
    assert samples.shape == (20000, 2, 3)
    assert (samples.sum(-1) == 1).all()
    numpy.testing.assert_allclose(samples.mean(0), p, atol=0.02)


def test_poisson_matches_scipy_and_samples():
    rng = numpy.random.RandomState(0)
    lam = rng.uniform(0.5, 4.0, (2, 3))
    x = rng.randint(0, 6, (4, 2, 3))
    dist = D.Poisson(lam)
    numpy.testing.assert_allclose(dist.log_prob(x).array, stats.poisson(lam).logpmf(x),
                                  rtol=1e-10)
    numpy.testing.assert_allclose(dist.mean.array, lam)
    numpy.testing.assert_allclose(dist.variance.array, lam)
    gradient_check.check_backward(lambda value: D.Poisson(value).log_prob(x), lam,
                                  rng.normal(size=(4, 2, 3)), eps=1e-6, atol=1e-6, rtol=1e-5)
    numpy.random.seed(0)
    samples = dist.sample(5000).array
    numpy.testing.assert_allclose(samples.mean(0), lam, atol=0.15)


def test_geometric_matches_scipy():
    rng = numpy.random.RandomState(0)
    p = rng.uniform(0.2, 0.8, (2, 3))
    x = rng.randint(1, 6, (4, 2, 3)).astype(numpy.float64)
    dist = D.Geometric(p)
    reference = stats.geom(p)
    numpy.testing.assert_allclose(dist.log_prob(x).array, reference.logpmf(x), rtol=1e-10)
    numpy.testing.assert_allclose(dist.mean.array, reference.mean(), rtol=1e-10)
    numpy.testing.assert_allclose(dist.variance.array, reference.var(), rtol=1e-10)
    numpy.random.seed(0)
    samples = dist.sample(5000).array
    assert samples.min() >= 1
    numpy.testing.assert_allclose(samples.mean(0), reference.mean(), atol=0.25)


def test_discrete_samples_carry_no_graph():
    p = chainer.Variable(numpy.array([0.3, 0.7]))
    assert D.Bernoulli(p=p).sample(2).creator is None
    assert D.Categorical(p).sample(2).creator is None


def test_categorical_log_prob_of_indices_that_do_not_broadcast_is_chainers_index_error():
    # Chainer indexes log p with x and gets NumPy's IndexError; ours is that and a ValueError.
    distribution = D.Categorical(numpy.full((3, 2), 0.5, numpy.float32))
    with pytest.raises(IndexError, match=r"^shape mismatch: indexing arrays could not be "
                       r"broadcast together with shapes \(3,\) \(4,\)") as raised:
        distribution.log_prob(numpy.array([0, 1, 1, 0]))
    assert isinstance(raised.value, ValueError)
