"""NegativeSampling link: its zero W, the sampler built from counts ** power, the loss call."""

from __future__ import annotations

import importlib

import numpy
import pytest

from chainer_compat.links.loss.negative_sampling import NegativeSampling


def _table_mass(sampler):
    count = len(sampler.threshold)
    mass = numpy.zeros(count)
    for column in range(count):
        keep = float(sampler.threshold[column])
        mass[sampler.values[2 * column]] += keep / count
        mass[sampler.values[2 * column + 1]] += (1 - keep) / count
    return mass


def test_w_is_zero_and_shaped_vocabulary_by_input():
    link = NegativeSampling(3, [1, 2, 3, 4], 2)
    assert link.W.shape == (4, 3)
    assert link.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W.array, 0)
    assert link.sample_size == 2


@pytest.mark.parametrize("power", [0.75, 1.0, 0.5])
def test_sampler_draws_in_proportion_to_counts_to_the_power(power):
    counts = numpy.array([1.0, 8.0, 27.0, 0.0, 64.0])
    link = NegativeSampling(2, counts, 3, power=power)
    expected = counts ** power / (counts ** power).sum()
    numpy.testing.assert_allclose(_table_mass(link.sampler), expected, atol=1e-6)


def test_loss_with_zero_weights_is_log_two_per_term():
    link = NegativeSampling(3, [1, 1, 1, 1], 2)
    x = numpy.ones((5, 3), numpy.float32)
    t = numpy.array([0, 1, 2, 3, -1], numpy.int32)
    loss, samples = link(x, t, reduce="no", return_samples=True)
    numpy.testing.assert_allclose(loss.array, [3 * numpy.log(2)] * 4 + [0], rtol=1e-6)
    assert samples.shape == (5, 3)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_allclose(link(x, t).array, 12 * numpy.log(2), rtol=1e-6)


def test_unknown_keyword_is_rejected():
    link = NegativeSampling(3, [1, 1], 1)
    with pytest.raises(TypeError):
        link(numpy.ones((1, 3), numpy.float32), numpy.zeros(1, numpy.int32), samples=True)


@pytest.mark.gpu
def test_sampler_follows_the_link_to_the_gpu(cupy):
    link = NegativeSampling(3, [1, 2, 3], 2).to_device("@cupy:0")
    assert link.sampler.use_gpu
    loss = link(cupy.ones((2, 3), cupy.float32), cupy.array([0, 2], cupy.int32))
    assert isinstance(loss.array, cupy.ndarray)


def test_the_link_calls_the_function_through_its_module(monkeypatch):
    # Chainer's link looks negative_sampling up on its module at each call, so tests patch
    # chainer.functions.loss.negative_sampling.negative_sampling to swap the sampler.
    module = importlib.import_module("chainer_compat.functions.loss.negative_sampling")
    calls = []
    real = module.negative_sampling

    def spy(*args, **kwargs):
        calls.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "negative_sampling", spy)
    link = NegativeSampling(3, [1, 2, 3, 4], 2)
    link(numpy.ones((2, 3), numpy.float32), numpy.array([0, 1], numpy.int32))
    assert calls == [link.sampler.sample]
