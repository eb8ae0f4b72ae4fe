"""Error paths of the losses that a differential fuzz against Chainer 7.8.1 found differing."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F
from chainer_compat.utils import type_check


def _f32(*shape):
    return numpy.random.default_rng(0).uniform(-1, 1, shape).astype(numpy.float32)


@pytest.mark.parametrize(("cost", "xs"), [
    ((3, 3), [(3,), (2, 3)]),
    ((3, 3), [(2, 3), (2,)]),
    ((3, 3), [(3,)]),
    ((3, 3), [(2, 4), (2, 4), (1, 4)]),
    ((3, 3), [(2, 3), (2, 4)]),
    ((3, 3, 3), [(2, 3), (2, 3)]),
])
def test_argmax_crf1d_shapes_that_do_not_line_up_are_invalid_type(cost, xs):
    with pytest.raises(type_check.InvalidType, match=r"^each xs\[t\] of argmax_crf1d must"):
        F.argmax_crf1d(_f32(*cost), [_f32(*shape) for shape in xs])


@pytest.mark.parametrize("cost", [[[0.0] * 3] * 3, 1.5])
def test_argmax_crf1d_cost_that_is_no_array_is_chainers_type_error(cost):
    with pytest.raises(TypeError, match=r"^incompatible array types are mixed in the forward "
                                        r"input \(Broadcast\)\.\nActual: "):
        F.argmax_crf1d(cost, [_f32(2, 3), _f32(2, 3), _f32(1, 3)])
    # A cost that broadcasts to (K, K) stays accepted, as in Chainer.
    score, path = F.argmax_crf1d(_f32(3), [_f32(2, 3), _f32(1, 3)])
    assert score.shape == (2,)
    assert [p.shape for p in path] == [(2,), (1,)]


def test_discriminative_loss_extra_positional_array_is_a_value_error_on_norm():
    embeddings = numpy.ones((2, 2, 4, 4), numpy.float32)
    labels = numpy.ones((2, 4, 4), numpy.int32)
    with pytest.raises(ValueError, match="^For discriminative loss, norm can only be 1 or 2"):
        F.discriminative_margin_based_clustering_loss(
            embeddings, labels, 0.5, 1.5, 2, numpy.ones(3, numpy.float32))


def test_discriminative_loss_embedding_size_mismatch_is_also_an_assertion_error():
    embeddings = numpy.ones((2, 2, 4, 4), numpy.float32)
    labels = numpy.ones((2, 4, 4), numpy.int32)
    with pytest.raises(AssertionError, match=r"embeddings.shape\[1\] must equal") as info:
        F.discriminative_margin_based_clustering_loss(embeddings, labels, 0.5, 1.5, 3)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("blank", [-1, 4, 100])
def test_ctc_blank_out_of_range_is_also_an_assertion_error(blank):
    xs = [_f32(2, 4)] * 3
    with pytest.raises(AssertionError, match=r"blank_symbol must be in \[0, 4\)") as info:
        F.connectionist_temporal_classification(xs, numpy.zeros((2, 1), numpy.int32), blank)
    assert isinstance(info.value, ValueError)


def test_ctc_frames_not_2d_are_an_assertion_error_as_in_chainer():
    xs = [_f32(2, 4, 1)] * 3
    with pytest.raises(AssertionError, match="must be 2-dimensional"):
        F.connectionist_temporal_classification(xs, numpy.zeros((2, 1), numpy.int32), 0)


def test_ctc_blank_of_wrong_type_message_starts_with_chainers():
    with pytest.raises(TypeError, match=r"^blank_symbol must be non-negative integer\.\n"):
        F.connectionist_temporal_classification([_f32(2, 4)] * 3,
                                                numpy.zeros((2, 1), numpy.int32), 1.5)


def test_reduce_message_quotes_the_value_as_chainer():
    x = _f32(2, 3)
    with pytest.raises(ValueError, match="^only 'mean' and 'no' are valid for 'reduce', but "
                                         "'None' is given\nFunction: softmax_cross_entropy"):
        F.softmax_cross_entropy(x, numpy.zeros(2, numpy.int32), reduce=None)


def test_soft_target_loss_message_starts_with_chainers():
    with pytest.raises(ValueError, match=r"^soft_target_loss must be 'cross-entropy' or "
                                         r"'kl-divergence'\.\n"):
        F.softmax_cross_entropy(_f32(2, 3), _f32(2, 3), soft_target_loss="foo")
