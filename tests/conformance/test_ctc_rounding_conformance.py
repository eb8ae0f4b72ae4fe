"""connectionist_temporal_classification rounds as Chainer's CPU code does, so seeded runs print
Chainer's losses and gradients to the last bit: pinned against a reference written out one
sequence at a time in Chainer's order of operations, and a zero-frame sequence scored as
Chainer scores it. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _shift(values, count, fill):
    """``values`` moved ``count`` places right, ``fill`` entering on the left."""
    shifted = numpy.full_like(values, fill)
    if count < len(values):
        shifted[count:] = values[:len(values) - count]
    return shifted


def _step(state, path, log_zero):
    """The log-probability of reaching each position from ``state`` in one frame: the max of
    stay, step and skip (never onto the symbol two back), plus the log of their exps' sum."""
    skip = _shift(state, 2, log_zero)
    skip[2:][path[2:] == path[:-2]] = log_zero
    stay, step = state, _shift(state, 1, log_zero)
    peak = numpy.maximum(numpy.maximum(stay, step), skip)
    return peak + numpy.log(numpy.exp(stay - peak) + numpy.exp(step - peak)
                            + numpy.exp(skip - peak))


def _recursion(emitted, path, accumulated, log_zero):
    """Adds each frame's step to ``accumulated`` (n, P) in place; the state gains the
    emissions."""
    state = numpy.full(len(path), log_zero, emitted.dtype)
    state[0] = 0
    for frame in range(len(emitted)):
        step = _step(state, path, log_zero)
        accumulated[frame] = accumulated[frame] + step
        state = step + emitted[frame]


def _reference(x, labels, blank, input_length, label_length, reduce, gy):
    """Chainer's loss and gradient, one sequence at a time, over its valid frames and path."""
    n_frame, n_batch, n_vocabulary = x.shape
    dtype = x.dtype
    log_zero = dtype.type(-1e4 if dtype == numpy.float16 else -1e10)
    exps = numpy.exp(x - x.max(axis=2, keepdims=True))
    probs = exps / exps.sum(axis=2, keepdims=True)
    with numpy.errstate(divide="ignore"):
        log_probs = numpy.where(probs > 0, numpy.log(probs), log_zero)
    n_position_max = 2 * labels.shape[1] + 1
    losses = numpy.zeros(n_batch, dtype)
    gradient = numpy.zeros_like(x)
    for b in range(n_batch):
        n = int(input_length[b])
        path = numpy.full(2 * int(label_length[b]) + 1, blank, numpy.int32)
        path[1::2] = labels[b, :label_length[b]]
        emitted = log_probs[:n, b, path]
        alpha = emitted.copy()
        _recursion(emitted, path, alpha, log_zero)
        # Backward: frames and positions reversed, accumulating onto alpha.
        product = alpha[::-1, ::-1].copy()
        _recursion(emitted[::-1, ::-1], path[::-1], product, log_zero)
        product = product[::-1, ::-1]
        # The total over frame 0, summed over the padded width (whose terms are exactly 0).
        peak = product[0].max()
        terms = numpy.zeros(n_position_max, dtype)
        terms[:len(path)] = numpy.exp(product[0] - peak)
        total = peak + numpy.log(terms.sum())
        losses[b] = -total
        posterior = numpy.exp(product - total)
        by_class = numpy.zeros((n, n_vocabulary), dtype)
        for symbol in set(path.tolist()):
            by_class[:, symbol] = posterior[:, path == symbol].sum(axis=1)
        scale = gy / n_batch if reduce == "mean" else gy[b]
        gradient[:n, b] = (probs[:n, b] - by_class) * scale
    loss = numpy.mean(losses) if reduce == "mean" else losses
    return numpy.asarray(loss, dtype), gradient


def _problem(name, dtype, seed):
    rng = numpy.random.RandomState(seed)
    n_frame, n_batch, n_vocabulary, n_label, blank = {
        "short": (12, 4, 6, 5, 2), "wide": (30, 3, 30, 10, 0), "tiny": (1, 2, 2, 1, 1)}[name]
    others = [v for v in range(n_vocabulary) if v != blank]
    labels = rng.choice(others, (n_batch, n_label)).astype(numpy.int32)
    if n_label >= 2:
        labels[0, 1] = labels[0, 0]  # a repeated label needs a blank between
    label_length = rng.randint(0, n_label + 1, n_batch).astype(numpy.int32)
    label_length[0] = n_label
    need = [length + int((labels[b, 1:length] == labels[b, :length - 1]).sum())
            for b, length in enumerate(label_length)]
    input_length = numpy.array([rng.randint(max(n, 1), n_frame + 1) for n in need], numpy.int32)
    x = (rng.normal(size=(n_frame, n_batch, n_vocabulary)) * 2).astype(dtype)
    return x, labels, blank, input_length, label_length


@pytest.mark.parametrize("name", ["short", "wide", "tiny"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_loss_and_gradient_round_as_chainer(name, dtype, reduce):
    x, labels, blank, input_length, label_length = _problem(name, dtype, seed=len(name))
    rng = numpy.random.RandomState(7)
    gy = numpy.asarray(rng.normal(size=() if reduce == "mean" else (x.shape[1],))).astype(dtype)
    xs = [chainer.Variable(frame) for frame in x]
    loss = F.connectionist_temporal_classification(xs, labels, blank, input_length,
                                                   label_length, reduce)
    loss.grad = gy
    loss.backward()
    expected_loss, expected_gradient = _reference(x, labels, blank, input_length, label_length,
                                                  reduce, gy)
    assert loss.dtype == dtype
    numpy.testing.assert_array_equal(loss.array, expected_loss)
    # assert_array_equal: the frames past input_length are 0 of either sign in Chainer.
    numpy.testing.assert_array_equal(numpy.stack([v.grad for v in xs]), expected_gradient)


def test_sequence_without_frames_is_scored_over_all_frames_and_gets_no_gradient():
    # compat: Chainer reverses each sequence within input_length modulo T, so input_length 0
    # reads as T for the loss, while its mask zeroes every frame of the gradient.
    rng = numpy.random.RandomState(3)
    x = rng.normal(size=(5, 2, 3)).astype(numpy.float32)
    labels = numpy.array([[1, 2], [1, 2]], numpy.int32)
    xs = [chainer.Variable(frame) for frame in x]
    loss = F.connectionist_temporal_classification(
        xs, labels, 0, numpy.array([5, 0], numpy.int32), numpy.array([2, 0], numpy.int32),
        reduce="no")
    loss.grad = numpy.ones(2, numpy.float32)
    loss.backward()
    log_probs = x.astype(numpy.float64) - numpy.log(numpy.exp(x.astype(numpy.float64)).sum(
        axis=2, keepdims=True))
    numpy.testing.assert_allclose(loss.array[1], -log_probs[:, 1, 0].sum(), rtol=1e-5)
    gradient = numpy.stack([v.grad for v in xs])
    assert (gradient[:, 1] == 0).all()
    assert (gradient[:, 0] != 0).any()


def test_sequence_without_frames_but_with_labels_is_scored_over_all_frames():
    # The same reading of input_length 0 as T frames decides whether the labels fit: three
    # labels fit in six frames, so the loss is a real one (Chainer: 7.61...), not the 1e10
    # stand-in of a sequence whose labels cannot fit.
    rng = numpy.random.RandomState(4)
    x = rng.normal(size=(6, 2, 5)).astype(numpy.float32)
    labels = numpy.array([[1, 3, 2], [4, 2, 1]], numpy.int32)
    xs = [chainer.Variable(frame) for frame in x]
    loss = F.connectionist_temporal_classification(
        xs, labels, 0, numpy.array([6, 0], numpy.int32), numpy.array([3, 3], numpy.int32),
        reduce="no")
    # The reference, with the row read over all six frames.
    expected_loss, _ = _reference(x, labels, 0, numpy.array([6, 6], numpy.int32),
                                  numpy.array([3, 3], numpy.int32), "no",
                                  numpy.ones(2, numpy.float32))
    assert loss.array[1] < 100
    numpy.testing.assert_array_equal(loss.array, expected_loss)
