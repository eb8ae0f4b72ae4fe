"""Every distribution on NumPy and, where a CUDA device exists, on CuPy: same values, samples
on the parameters' device, and KL divergences."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import backend, distribution
from chainer_compat import distributions as D
from chainer_compat.distribution import kl_divergence

pytest.importorskip("scipy.special")

SHAPE = (2, 3)


def _parameters(seed):
    rng = numpy.random.RandomState(seed)
    probabilities = rng.uniform(0.2, 1.0, SHAPE + (4,))
    probabilities /= probabilities.sum(-1, keepdims=True)
    tril = numpy.tril(rng.uniform(-0.3, 0.3, SHAPE + (2, 2)), -1) + numpy.eye(2)
    return {
        "Normal": ((rng.normal(size=SHAPE), rng.uniform(0.5, 2.0, SHAPE)), rng.normal(size=SHAPE)),
        "Laplace": ((rng.normal(size=SHAPE), rng.uniform(0.5, 2.0, SHAPE)),
                    rng.normal(size=SHAPE)),
        "Gumbel": ((rng.normal(size=SHAPE), rng.uniform(0.5, 2.0, SHAPE)), rng.normal(size=SHAPE)),
        "Cauchy": ((rng.normal(size=SHAPE), rng.uniform(0.5, 2.0, SHAPE)), rng.normal(size=SHAPE)),
        "Exponential": ((rng.uniform(0.5, 2.0, SHAPE),), rng.uniform(0.1, 2.0, SHAPE)),
        "Gamma": ((rng.uniform(1.0, 3.0, SHAPE), rng.uniform(0.5, 2.0, SHAPE)),
                  rng.uniform(0.1, 2.0, SHAPE)),
        "Beta": ((rng.uniform(1.0, 3.0, SHAPE), rng.uniform(1.0, 3.0, SHAPE)),
                 rng.uniform(0.1, 0.9, SHAPE)),
        "LogNormal": ((rng.normal(size=SHAPE), rng.uniform(0.5, 1.0, SHAPE)),
                      rng.uniform(0.1, 2.0, SHAPE)),
        "Chisquare": ((rng.uniform(2.0, 5.0, SHAPE),), rng.uniform(0.5, 3.0, SHAPE)),
        "Pareto": ((rng.uniform(0.5, 1.0, SHAPE), rng.uniform(2.0, 4.0, SHAPE)),
                   rng.uniform(1.0, 3.0, SHAPE)),
        "Poisson": ((rng.uniform(0.5, 3.0, SHAPE),), rng.randint(0, 5, SHAPE).astype(float)),
        "Geometric": ((rng.uniform(0.2, 0.8, SHAPE),), rng.randint(1, 5, SHAPE).astype(float)),
        "Bernoulli": ((rng.uniform(0.2, 0.8, SHAPE),), rng.randint(0, 2, SHAPE).astype(float)),
        "Categorical": ((probabilities,), rng.randint(0, 4, SHAPE)),
        "OneHotCategorical": ((probabilities,), numpy.eye(4)[rng.randint(0, 4, SHAPE)]),
        "Dirichlet": ((probabilities * 5,), probabilities[::-1].copy()),
        "MultivariateNormal": ((rng.normal(size=SHAPE + (2,)), tril),
                               rng.normal(size=SHAPE + (2,))),
        "Uniform": ((-rng.uniform(1.0, 2.0, SHAPE), rng.uniform(1.0, 2.0, SHAPE)),
                    rng.uniform(-0.9, 0.9, SHAPE)),
    }


def _build(name, arrays):
    if name == "MultivariateNormal":
        return D.MultivariateNormal(arrays[0], scale_tril=arrays[1])
    if name == "Uniform":
        return D.Uniform(low=arrays[0], high=arrays[1])
    return getattr(D, name)(*arrays)


NAMES = sorted(_parameters(0))


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_sample_and_kl_agree_with_numpy(xp, name):
    first, second = _parameters(0)[name], _parameters(1)[name]
    on_numpy = _build(name, first[0])
    on_xp = _build(name, tuple(xp.asarray(array) for array in first[0]))
    x = first[1]
    numpy.testing.assert_allclose(backend.CpuDevice().send(on_xp.log_prob(xp.asarray(x)).array),
                                  on_numpy.log_prob(x).array, rtol=1e-7, atol=1e-10)
    samples = on_xp.sample((5,))
    assert backend.get_array_module(samples) is xp
    assert samples.shape == (5,) + on_numpy.batch_shape + on_numpy.event_shape
    other_numpy = _build(name, second[0])
    other_xp = _build(name, tuple(xp.asarray(array) for array in second[0]))
    # Cauchy and Chisquare have no registered KL divergence, as in Chainer.
    if (type(on_numpy), type(other_numpy)) in distribution._KLDIVERGENCE:
        numpy.testing.assert_allclose(
            backend.CpuDevice().send(kl_divergence(on_xp, other_xp).array),
            kl_divergence(on_numpy, other_numpy).array, rtol=1e-7, atol=1e-10)
