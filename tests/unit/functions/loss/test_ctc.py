"""connectionist_temporal_classification against brute-force enumeration of every alignment,
gradients in float64 (and the same bits with double backprop), lengths, labels too long for
their frames, float16, the node Chainer records, errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from chainer_compat import FunctionHook, Variable, gradient_check
from chainer_compat.functions.loss.ctc import connectionist_temporal_classification as ctc
from chainer_compat.utils import type_check

BLANK = 0


def _collapse(alignment):
    merged = [symbol for i, symbol in enumerate(alignment)
              if i == 0 or symbol != alignment[i - 1]]
    return tuple(symbol for symbol in merged if symbol != BLANK)


def _brute_force(frames, labels, input_length, label_length, suffixes=False):
    """-log of the summed probability of every alignment that collapses to the labels (with
    ``suffixes``, to any suffix of them, the empty one included)."""
    n_frame, n_batch, n_vocabulary = frames.shape
    shifted = frames - frames.max(axis=2, keepdims=True)
    probs = numpy.exp(shifted) / numpy.exp(shifted).sum(axis=2, keepdims=True)
    losses = []
    for b in range(n_batch):
        target = tuple(int(v) for v in labels[b, :label_length[b]])
        targets = {target[k:] for k in range(len(target) + 1)} if suffixes else {target}
        total = 0.0
        for alignment in itertools.product(range(n_vocabulary), repeat=int(input_length[b])):
            if _collapse(alignment) in targets:
                total += numpy.prod([probs[i, b, s] for i, s in enumerate(alignment)])
        losses.append(-numpy.log(total))
    return numpy.array(losses)


def _problem(seed=0, n_frame=4, n_batch=3, n_vocabulary=3):
    rng = numpy.random.RandomState(seed)
    frames = rng.normal(size=(n_frame, n_batch, n_vocabulary))
    labels = numpy.array([[1, 2], [2, 2], [2, 1]], numpy.int32)[:n_batch]
    return frames, labels


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_full_length_loss_matches_enumeration(reduce):
    frames, labels = _problem()
    loss = ctc(list(frames), labels, BLANK, reduce=reduce)
    full = numpy.full(3, 4)
    expected = _brute_force(frames, labels, full, numpy.full(3, 2))
    numpy.testing.assert_allclose(loss.array, expected.mean() if reduce == "mean" else expected,
                                  rtol=1e-10)


def test_input_and_label_lengths_are_respected():
    frames, labels = _problem(seed=1)
    input_length = numpy.array([4, 3, 2], numpy.int32)
    label_length = numpy.array([2, 2, 1], numpy.int32)
    loss = ctc(list(frames), labels, BLANK, input_length, label_length, reduce="no")
    expected = _brute_force(frames, labels, input_length, label_length)
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-10)


def test_empty_labels_mean_all_blank():
    frames, _ = _problem(seed=2)
    labels = numpy.zeros((3, 0), numpy.int32)
    loss = ctc(list(frames), labels, BLANK, reduce="no")
    shifted = frames - frames.max(axis=2, keepdims=True)
    log_probs = shifted - numpy.log(numpy.exp(shifted).sum(axis=2, keepdims=True))
    numpy.testing.assert_allclose(loss.array, -log_probs[:, :, BLANK].sum(axis=0), rtol=1e-10)


def test_float32_keeps_its_dtype():
    frames, labels = _problem()
    assert ctc(list(frames.astype(numpy.float32)), labels, BLANK).dtype == numpy.float32


def test_gradients_match_numerical_ones():
    frames, labels = _problem(seed=3)
    input_length = numpy.array([4, 3, 4], numpy.int32)
    label_length = numpy.array([2, 2, 1], numpy.int32)
    rng = numpy.random.RandomState(4)

    def loss(*xs):
        return ctc(list(xs), labels, BLANK, input_length, label_length, reduce="no")

    inputs = tuple(frames)
    gradient_check.check_backward(loss, inputs, rng.normal(size=3), dtype=numpy.float64)
    gradient_check.check_double_backward(
        loss, inputs, rng.normal(size=3), tuple(rng.normal(size=f.shape) for f in inputs),
        dtype=numpy.float64, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_gradient_bits_do_not_depend_on_double_backprop(reduce):
    frames, labels = _problem(seed=8, n_frame=6)
    frames = frames.astype(numpy.float32)
    input_length = numpy.array([6, 5, 4], numpy.int32)
    gradients = []
    for double in (False, True):
        xs = [Variable(frame) for frame in frames]
        loss = ctc(xs, labels, BLANK, input_length, reduce=reduce)
        loss.grad = numpy.linspace(0.5, 1.5, loss.size).astype(numpy.float32).reshape(loss.shape)
        loss.backward(enable_double_backprop=double)
        assert (xs[0].grad_var.creator is not None) == double
        gradients.append(numpy.stack([x.grad for x in xs]))
    assert gradients[0].tobytes() == gradients[1].tobytes()


def test_loss_is_one_node_with_chainers_inputs():
    frames, labels = _problem()
    loss = ctc(list(frames), labels, BLANK, reduce="no")
    assert loss.creator.label == "ConnectionistTemporalClassification"
    input_length, label_length, t, x = loss.creator.inputs
    assert (input_length.data == 4).all() and (label_length.data == 2).all()
    assert (t.data == labels).all()
    assert x.shape == frames.shape


def _numerical_gradient(function, frames, step=1e-6):
    gradient = numpy.zeros_like(frames)
    for index in numpy.ndindex(frames.shape):
        shifted = frames.copy()
        shifted[index] += step
        ahead = function(shifted)
        shifted[index] -= 2 * step
        gradient[index] = (ahead - function(shifted)) / (2 * step)
    return gradient


# Row 0 needs 3 frames for [1, 2, 1] and has 2; row 1 needs 4 for [2, 2, 1] (a blank between
# the 2s) and has 3; row 2 fits.
CANNOT_FIT = (numpy.array([[1, 2, 1], [2, 2, 1], [2, 1, 0]], numpy.int32),
              numpy.array([2, 3, 4], numpy.int32), numpy.array([3, 3, 2], numpy.int32))


def test_labels_that_cannot_fit_get_the_log_zero_loss_and_the_suffix_gradient():
    labels, input_length, label_length = CANNOT_FIT
    frames = numpy.random.RandomState(6).normal(size=(4, 3, 3))
    xs = [Variable(frame) for frame in frames]
    loss = ctc(xs, labels, BLANK, input_length, label_length, reduce="no")
    suffix = _brute_force(frames, labels, input_length, label_length, suffixes=True)
    numpy.testing.assert_allclose(loss.array[:2] - 1e10, suffix[:2], atol=1e-4)
    fits = _brute_force(frames[:, 2:], labels[2:], input_length[2:], label_length[2:])
    numpy.testing.assert_allclose(loss.array[2], fits[0], rtol=1e-10)
    loss.grad = numpy.ones(3)
    loss.backward()
    gradient = numpy.stack([x.grad for x in xs])
    for row in range(2):
        def row_loss(shifted, row=row):
            return _brute_force(shifted, labels, input_length, label_length, suffixes=True)[row]
        expected = _numerical_gradient(row_loss, frames)[:, row]
        numpy.testing.assert_allclose(gradient[:, row], expected, atol=1e-6)


@pytest.mark.parametrize("dtype, loss_value, tolerance",
                         [(numpy.float16, 1e4, 2e-2), (numpy.float32, 1e10, 1e-4)])
def test_labels_that_cannot_fit_keep_a_proper_gradient_in_low_precision(dtype, loss_value,
                                                                         tolerance):
    labels, input_length, label_length = CANNOT_FIT
    frames = numpy.random.RandomState(6).normal(size=(4, 3, 3))

    def gradient_of(array_dtype):
        xs = [Variable(frame.astype(array_dtype)) for frame in frames]
        loss = ctc(xs, labels, BLANK, input_length, label_length, reduce="no")
        loss.grad = numpy.ones(3, array_dtype)
        loss.backward()
        return loss.array, numpy.stack([x.grad for x in xs]).astype(numpy.float64)

    loss, gradient = gradient_of(dtype)
    assert loss.dtype == dtype
    numpy.testing.assert_allclose(loss[:2], loss_value, rtol=1e-6)
    # Every frame's gradient sums to 0 over the classes, as for any function of the softmax.
    numpy.testing.assert_allclose(gradient.sum(axis=2), 0, atol=tolerance)
    numpy.testing.assert_allclose(gradient, gradient_of(numpy.float64)[1], atol=tolerance)


def test_float16_follows_float64():
    frames, labels = _problem(seed=7)
    expected = ctc(list(frames), labels, BLANK, reduce="no").array
    with numpy.errstate(over="raise"):
        loss = ctc(list(frames.astype(numpy.float16)), labels, BLANK, reduce="no")
    assert loss.dtype == numpy.float16
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-2)


def test_errors():
    frames, labels = _problem()
    xs = list(frames)
    with pytest.raises(TypeError, match="x must be a list of Variables"):
        ctc(frames, labels, BLANK)
    with pytest.raises(TypeError, match="blank_symbol must be non-negative integer"):
        ctc(xs, labels, 0.0)
    with pytest.raises(ValueError, match=r"blank_symbol must be in \[0, 3\)"):
        ctc(xs, labels, 3)
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce'"):
        ctc(xs, labels, BLANK, reduce="sum")
    with pytest.raises(type_check.InvalidType):
        ctc(xs, labels.astype(numpy.int64), BLANK)
    with pytest.raises(type_check.InvalidType):
        ctc(xs, labels[:2], BLANK)
    with pytest.raises(type_check.InvalidType):
        ctc(xs, labels, BLANK, input_length=numpy.full(3, 4, numpy.int64))


@pytest.mark.gpu
def test_matches_numpy_on_gpu(cupy):
    frames, labels = _problem(seed=5)
    expected = ctc(list(frames), labels, BLANK, reduce="no").array
    loss = ctc([cupy.asarray(f) for f in frames], cupy.asarray(labels), BLANK, reduce="no")
    assert isinstance(loss.array, cupy.ndarray)
    numpy.testing.assert_allclose(cupy.asnumpy(loss.array), expected, rtol=1e-10)


def test_a_hook_sees_chainers_trace_and_no_gradient_node():
    # Chainer 7.8.1's CTC is an old-style Function: under a hook, its backward applies no
    # node (NOTE [old-style gradients]); the frames' gradients need a gradient, as there.
    class Trace(FunctionHook):
        name = "trace"

        def __init__(self):
            self.seen = []

        def forward_preprocess(self, function, in_data):
            self.seen.append("F:" + function.label)

        def backward_preprocess(self, function, in_data, out_grad):
            self.seen.append("B:" + function.label)

    rng = numpy.random.RandomState(0)
    xs = [Variable(rng.randn(2, 5).astype(numpy.float32)) for _ in range(4)]
    hook = Trace()
    with hook:
        loss = ctc(xs, numpy.array([[1, 2], [3, 3]], numpy.int32), 0)
        loss.backward()
    assert hook.seen == ["F:Stack", "F:ConnectionistTemporalClassification",
                         "B:ConnectionistTemporalClassification", "B:Stack", "F:Separate"]
    assert xs[0].grad_var.requires_grad
