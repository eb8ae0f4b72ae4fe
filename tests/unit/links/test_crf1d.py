"""CRF1d link: its cost parameter, batch-major input, decoding back to the caller's order."""

from __future__ import annotations

import itertools

import numpy

from chainer_compat.functions.loss.crf1d import crf1d
from chainer_compat.links.loss.crf1d import CRF1d

N_LABEL = 3


def _sequences(lengths, seed=0):
    rng = numpy.random.RandomState(seed)
    xs = [rng.normal(size=(n, N_LABEL)).astype(numpy.float32) for n in lengths]
    ys = [rng.randint(0, N_LABEL, n).astype(numpy.int32) for n in lengths]
    return xs, ys


def _best_path(cost, emissions):
    def score(path):
        return (sum(emissions[t, y] for t, y in enumerate(path))
                + sum(cost[a, b] for a, b in zip(path[:-1], path[1:])))
    return max(itertools.product(range(N_LABEL), repeat=len(emissions)), key=score)


def test_cost_is_a_zero_parameter_by_default():
    link = CRF1d(N_LABEL)
    assert link.cost.shape == (N_LABEL, N_LABEL)
    numpy.testing.assert_array_equal(link.cost.array, 0)
    assert [name for name, _ in link.namedparams()] == ["/cost"]


def test_initial_cost_is_used():
    initial = numpy.arange(9, dtype=numpy.float32).reshape(3, 3)
    numpy.testing.assert_array_equal(CRF1d(N_LABEL, initial_cost=initial).cost.array, initial)


def test_batch_major_input_is_sorted_and_transposed():
    link = CRF1d(N_LABEL, initial_cost=numpy.random.RandomState(1).normal(size=(3, 3)))
    xs, ys = _sequences((2, 4, 3))
    order = [1, 2, 0]
    time_major_x = [numpy.stack([xs[b][t] for b in order if len(xs[b]) > t]) for t in range(4)]
    time_major_y = [numpy.stack([ys[b][t] for b in order if len(ys[b]) > t]) for t in range(4)]
    expected = crf1d(link.cost, time_major_x, time_major_y, reduce="no").array
    numpy.testing.assert_allclose(link(xs, ys, reduce="no", transpose=True).array, expected)
    numpy.testing.assert_allclose(link(xs, ys, transpose=True).array, expected.mean(),
                                  rtol=1e-6)


def test_argmax_of_batch_major_input_returns_paths_in_the_callers_order():
    cost = numpy.random.RandomState(2).normal(size=(3, 3)).astype(numpy.float32)
    link = CRF1d(N_LABEL, initial_cost=cost)
    xs, _ = _sequences((2, 4, 3), seed=3)
    _, paths = link.argmax(xs, transpose=True)
    assert [p.shape for p in paths] == [(2,), (4,), (3,)]
    for emissions, path in zip(xs, paths):
        assert tuple(int(label) for label in path) == _best_path(cost, emissions)


def test_gradient_reaches_the_cost():
    link = CRF1d(N_LABEL)
    xs, ys = _sequences((3, 2))
    link.cleargrads()
    link(xs, ys, transpose=True).backward()
    assert link.cost.grad.shape == (N_LABEL, N_LABEL)
    # With zero cost the expected transition counts exceed the observed ones somewhere.
    assert numpy.abs(link.cost.grad).sum() > 0
