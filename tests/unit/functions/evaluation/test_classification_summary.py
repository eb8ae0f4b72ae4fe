"""classification_summary and its shortcuts: our-only behaviour (debug check, fbeta_score,
the old-style call of the node, no gradient)."""

from __future__ import annotations

import warnings

import numpy
import pytest

import chainer_compat
from chainer_compat.functions.evaluation.classification_summary import (
    ClassificationSummary,
    classification_summary,
    fbeta_score,
)


def _inputs(seed: int = 0):
    rng = numpy.random.default_rng(seed)
    return (rng.standard_normal((20, 3)).astype(numpy.float32),
            rng.integers(0, 3, 20).astype(numpy.int32))


def test_fbeta_score_weighs_recall_by_beta():
    y, t = _inputs()
    precision, recall, _, support = classification_summary(y, t, beta=2.0)
    score, support_again = fbeta_score(y, t, beta=2.0)
    expected = 5 * precision.array * recall.array / (4 * precision.array + recall.array)
    numpy.testing.assert_allclose(score.array, expected)
    numpy.testing.assert_array_equal(support_again.array, support.array)


def test_label_num_pads_classes_without_samples_with_nan():
    y, t = _inputs(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        precision, recall, _, support = classification_summary(y, t, label_num=5)
    assert precision.shape == (5,)
    assert numpy.isnan(recall.array[3:]).all() and (support.array[3:] == 0).all()


def test_debug_mode_rejects_labels_beyond_label_num():
    y, t = _inputs(2)
    with chainer_compat.using_config("debug", True), pytest.raises(ValueError, match="label_num"):
        classification_summary(y, t, label_num=2)


def test_node_called_directly_like_an_old_style_function():
    y, t = _inputs(3)
    node = ClassificationSummary(None, 1.0, -1)
    first = node(y, t)
    second = node(y, t)
    assert len(first) == 4 and first[0].creator is not second[0].creator
    numpy.testing.assert_array_equal(first[3].array, second[3].array)


def test_ignored_samples_do_not_count():
    y, t = _inputs(4)
    t_ignored = t.copy()
    t_ignored[:5] = -1
    _, _, _, support = classification_summary(y, t_ignored)
    numpy.testing.assert_array_equal(support.array, numpy.bincount(t[5:], minlength=3))
