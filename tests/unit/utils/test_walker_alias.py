"""WalkerAlias: sampled frequencies follow the weights, shapes and dtypes, table layout, errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.utils.walker_alias import WalkerAlias


@pytest.mark.parametrize("probs", [[1, 2, 3, 0, 4], [5], [0.1] * 7, [1e-3, 1, 1e3]])
def test_frequencies_follow_the_weights(probs):
    numpy.random.seed(0)
    samples = WalkerAlias(probs).sample((200000,))
    expected = numpy.asarray(probs, numpy.float64) / numpy.sum(probs)
    frequencies = numpy.bincount(samples, minlength=len(probs)) / len(samples)
    numpy.testing.assert_allclose(frequencies, expected, atol=5e-3)


def test_exact_probabilities_of_the_table():
    probs = numpy.array([3.0, 1.0, 0.0, 4.0, 2.0])
    sampler = WalkerAlias(probs)
    count = len(probs)
    mass = numpy.zeros(count)
    for column in range(count):
        keep = float(sampler.threshold[column])
        mass[sampler.values[2 * column]] += keep / count
        mass[sampler.values[2 * column + 1]] += (1 - keep) / count
    numpy.testing.assert_allclose(mass, probs / probs.sum(), atol=1e-6)


def test_sample_shape_dtype_and_reproducibility():
    sampler = WalkerAlias([1, 1, 2])
    numpy.random.seed(3)
    first = sampler.sample((4, 5))
    numpy.random.seed(3)
    second = sampler.sample((4, 5))
    assert first.shape == (4, 5)
    assert first.dtype == numpy.int32
    numpy.testing.assert_array_equal(first, second)
    assert sampler.threshold.dtype == numpy.float32
    assert sampler.values.shape == (6,)
    assert not sampler.use_gpu


@pytest.mark.parametrize("probs", [[], [-1, 2], [0, 0]])
def test_invalid_weights_are_rejected(probs):
    with pytest.raises(ValueError, match="probs of WalkerAlias must be non-negative"):
        WalkerAlias(probs)


@pytest.mark.gpu
def test_sampling_on_gpu(cupy):
    sampler = WalkerAlias([1, 3]).to_gpu()
    assert sampler.use_gpu
    samples = sampler.sample((50000,))
    assert isinstance(samples, cupy.ndarray)
    assert abs(float((samples == 1).mean()) - 0.75) < 0.02
