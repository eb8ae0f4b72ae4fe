"""BlackOut link: its NaN-initialized W, fixed sample_data, sampling from counts."""

from __future__ import annotations

import numpy

from chainer_compat.functions.loss.black_out import black_out
from chainer_compat.links.loss.black_out import BlackOut


def test_w_is_an_uninitialized_nan_parameter_of_vocabulary_by_input():
    link = BlackOut(3, [1, 2, 3, 4], 2)
    assert link.W.shape == (4, 3)
    assert numpy.isnan(link.W.array).all()
    assert link.sample_size == 2


def test_sample_data_replaces_sampling():
    link = BlackOut(3, [1, 2, 3, 4], 2)
    link.W.array[...] = numpy.random.RandomState(0).normal(size=(4, 3))
    link.sample_data = numpy.array([[0, 2], [3, 1]], numpy.int32)
    x = numpy.random.RandomState(1).normal(size=(2, 3)).astype(numpy.float32)
    t = numpy.array([1, 0], numpy.int32)
    expected = black_out(x, t, link.W.array, link.sample_data)
    numpy.testing.assert_allclose(link(x, t).array, expected.array, rtol=1e-6)


def test_sampled_negatives_follow_counts():
    link = BlackOut(2, [0, 1, 0, 3], 4)
    numpy.random.seed(0)
    samples = link.sampler.sample((20000,))
    assert set(numpy.unique(samples)) == {1, 3}
    numpy.testing.assert_allclose((samples == 3).mean(), 0.75, atol=0.02)
    link.W.array[...] = 0
    loss = link(numpy.ones((5, 2), numpy.float32), numpy.zeros(5, numpy.int32))
    # All scores are 0: log Z = log 5, loss = log 5 - 4 log(1 - 1/5) per example.
    numpy.testing.assert_allclose(loss.array, numpy.log(5) - 4 * numpy.log(0.8), rtol=1e-6)
