"""crf1d and argmax_crf1d against brute-force enumeration of every label path, gradients, errors."""

from __future__ import annotations

import itertools

import numpy
import pytest
from gradient_paths import LabelRecorder

from chainer_compat import gradient_check
from chainer_compat.functions.loss.crf1d import argmax_crf1d, crf1d

LENGTHS = (3, 3, 2, 1)  # per sequence, longest first
N_LABEL = 3


def _problem(seed=0, dtype=numpy.float64):
    rng = numpy.random.RandomState(seed)
    cost = rng.normal(size=(N_LABEL, N_LABEL)).astype(dtype)
    sequences = [rng.normal(size=(length, N_LABEL)).astype(dtype) for length in LENGTHS]
    labels = [rng.randint(0, N_LABEL, length).astype(numpy.int32) for length in LENGTHS]
    return cost, sequences, labels


def _time_major(sequences):
    steps = max(len(s) for s in sequences)
    return [numpy.stack([s[t] for s in sequences if len(s) > t]) for t in range(steps)]


def _path_score(cost, emissions, path):
    score = sum(emissions[t, label] for t, label in enumerate(path))
    return score + sum(cost[a, b] for a, b in zip(path[:-1], path[1:]))


def _brute_force(cost, emissions):
    """(log Z, best path, best score) of one sequence by enumerating all K**T paths."""
    paths = list(itertools.product(range(N_LABEL), repeat=len(emissions)))
    scores = numpy.array([_path_score(cost, emissions, p) for p in paths])
    best = int(scores.argmax())
    return numpy.log(numpy.exp(scores).sum()), paths[best], scores[best]


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_loss_is_log_partition_minus_path_score(reduce):
    cost, sequences, labels = _problem()
    loss = crf1d(cost, _time_major(sequences), _time_major(labels), reduce=reduce)
    expected = numpy.array([_brute_force(cost, s)[0] - _path_score(cost, s, y)
                            for s, y in zip(sequences, labels)])
    if reduce == "mean":
        expected = expected.mean()
    assert loss.shape == expected.shape
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-10)


def test_argmax_matches_the_best_enumerated_path():
    cost, sequences, _ = _problem(seed=1)
    score, path = argmax_crf1d(cost, _time_major(sequences))
    for b, emissions in enumerate(sequences):
        _, best_path, best_score = _brute_force(cost, emissions)
        assert tuple(int(path[t][b]) for t in range(len(emissions))) == best_path
        numpy.testing.assert_allclose(score.array[b], best_score, rtol=1e-10)
    assert [p.shape for p in path] == [(4,), (3,), (2,)]


def test_single_step_sequences():
    cost, sequences, labels = _problem(seed=2)
    xs = [numpy.stack([s[0] for s in sequences])]
    ys = [numpy.stack([y[0] for y in labels])]
    log_z = numpy.log(numpy.exp(xs[0]).sum(axis=1))
    expected = log_z - xs[0][numpy.arange(len(LENGTHS)), ys[0]]
    numpy.testing.assert_allclose(crf1d(cost, xs, ys, reduce="no").array, expected, rtol=1e-12)


def test_gradients_match_numerical_ones():
    cost, sequences, labels = _problem(seed=3)
    xs = _time_major(sequences)
    ys = _time_major(labels)
    rng = numpy.random.RandomState(4)

    def loss(cost, *xs):
        return crf1d(cost, list(xs), ys, reduce="no")

    inputs = (cost, *xs)
    gradient_check.check_backward(loss, inputs, rng.normal(size=(4,)), dtype=numpy.float64)
    gradient_check.check_double_backward(
        loss, inputs, rng.normal(size=(4,)), tuple(rng.normal(size=a.shape) for a in inputs),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


def test_invalid_reduce_is_rejected():
    cost, sequences, labels = _problem()
    with pytest.raises(
            ValueError,
            match="^only 'mean' and 'no' are valid for 'reduce', but 'sum' is given"):
        crf1d(cost, _time_major(sequences), _time_major(labels), reduce="sum")


def test_label_count_mismatch_is_rejected():
    cost, sequences, labels = _problem()
    with pytest.raises(ValueError, match="number of labels") as info:
        crf1d(cost[:2, :2], _time_major(sequences), _time_major(labels))
    assert isinstance(info.value, AssertionError)  # Chainer asserts it


@pytest.mark.gpu
def test_matches_numpy_on_gpu(cupy):
    cost, sequences, labels = _problem(seed=6)
    xs, ys = _time_major(sequences), _time_major(labels)
    expected = crf1d(cost, xs, ys, reduce="no").array
    loss = crf1d(cupy.asarray(cost), [cupy.asarray(x) for x in xs],
                 [cupy.asarray(y) for y in ys], reduce="no")
    numpy.testing.assert_allclose(cupy.asnumpy(loss.array), expected, rtol=1e-10)
    _, path = argmax_crf1d(cupy.asarray(cost), [cupy.asarray(x) for x in xs])
    assert all(isinstance(p, cupy.ndarray) for p in path)


def test_a_hook_sees_chainers_functions_for_sequences_of_different_lengths():
    rng = numpy.random.default_rng(33)
    cost = rng.standard_normal((4, 4)).astype(numpy.float32)
    xs = [rng.standard_normal((batch, 4)).astype(numpy.float32) for batch in (3, 2, 1)]
    ys = [rng.integers(0, 4, len(x)).astype(numpy.int32) for x in xs]
    with LabelRecorder() as recorder:
        crf1d(cost, xs, ys)
    step = ["SplitAxis", "SplitAxis", "SelectItem", "_ * 4", "_ + _", "EmbedIDFunction",
            "Reshape", "_ + _", "_ + _"]
    forward = ["SplitAxis", "GetItem", "Broadcast", "_ + _", "LogSumExp", "_ + _"]
    # Chainer 7.8.1's sequence: finished sequences split off (their previous labels too,
    # whose transition index is then computed on Variables), each step's two terms added
    # before they join the score.
    assert recorder.labels == (forward * 2 + ["Concat", "LogSumExp", "Reshape", "SelectItem"]
                               + step * 2 + ["Concat", "_ - _", "Sum", "_ * 0.3333333333333333"])
