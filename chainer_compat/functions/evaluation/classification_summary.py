"""``classification_summary``: per-class precision, recall, F-beta score and support of a
minibatch, with the ``precision``, ``recall``, ``fbeta_score`` and ``f1_score`` shortcuts.

Layer 5: imports backend, variable, function_node and type_check. Not differentiable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import OldStyleCall
from chainer_compat.utils import type_check


def _fbeta_score(precision: Any, recall: Any, beta: float) -> Any:
    beta_square = beta * beta
    score = (1 + beta_square) * precision * recall / (beta_square * precision + recall)
    return score.astype(precision.dtype, copy=False)


class ClassificationSummary(OldStyleCall, FunctionNode):
    """Per-class precision, recall, F-beta score and support. Use
    :func:`classification_summary`.

    Compat: a ``FunctionNode`` (Chainer's is an old-style ``Function``); calling an instance
    works as Chainer's ``Function.__call__`` does.
    """

    def __init__(self, label_num: int | None, beta: float, ignore_label: int) -> None:
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
        )
        t_ndim = type_check.eval(t_type.ndim)
        type_check.expect(
            x_type.ndim >= t_type.ndim,
            x_type.shape[0] == t_type.shape[0],
            x_type.shape[2: t_ndim + 1] == t_type.shape[1:],
        )
        # Axes of x beyond t's (after the class axis) must be singletons.
        for i in range(t_ndim + 1, type_check.eval(x_type.ndim)):
            type_check.expect(x_type.shape[i] == 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        # bincount wants a platform int; labels are small non-negative integers.
        t = t.astype(xp.int32, copy=False)
        if self.label_num is None:
            label_num = int(t.max()) + 1 if t.size else 0
        else:
            label_num = self.label_num
            if config.debug and bool((t >= label_num).any()):
                raise ValueError(
                    f"every label in t must be less than label_num={label_num}, got "
                    f"{int(t.max())}")
        # Ignored samples are counted in an extra bin ``label_num`` that is cut off below.
        ignored = (t == self.ignore_label).ravel()
        predicted = xp.where(ignored, label_num, y.argmax(axis=1).ravel())
        true = xp.where(ignored, label_num, t.ravel())
        bins = label_num + 1
        support = xp.bincount(true, minlength=bins)[:label_num]
        relevant = xp.bincount(predicted, minlength=bins)[:label_num]
        hits = xp.bincount(xp.where(predicted == true, true, label_num), minlength=bins)
        true_positive = hits[:label_num]
        # compat: classes never predicted (or never present) give NaN with a RuntimeWarning,
        # and the scores are float64 whatever y's dtype, as in Chainer.
        precision = true_positive / relevant
        recall = true_positive / support
        fbeta = _fbeta_score(precision, recall, self.beta)
        return precision, recall, fbeta, support


def classification_summary(y: Any, t: Any, label_num: int | None = None, beta: float = 1.0,
                           ignore_label: int = -1) -> tuple[variable.Variable, ...]:
    """Per-class precision, recall, F-beta score and support of a minibatch.

    The prediction for each sample is the argmax of ``y`` over axis 1. For each class,
    precision is ``tp / (tp + fp)``, recall is ``tp / (tp + fn)``, the F-beta score is their
    weighted harmonic mean, and support counts the samples whose true label is that class.

    Args:
        y: Scores of shape ``(N, C, ...)``.
        t: Signed integer labels of shape ``(N, ...)``, in ``[0, label_num)``.
        label_num: Number of classes; None means ``max(t) + 1``.
        beta: Weight of recall relative to precision in the F-beta score.
        ignore_label: Samples with this label are left out (the default -1 leaves none out,
            as labels are non-negative).

    Returns:
        ``(precision, recall, fbeta_score, support)``: Variables of shape ``(label_num,)``; the
        scores are float64 (NaN for a class with no prediction or no sample, with NumPy's
        RuntimeWarning) and the support is an integer count. Not differentiable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
        ValueError: In debug mode, if a label is not less than ``label_num``.
    """
    return ClassificationSummary(label_num, beta, ignore_label)(y, t)


def precision(y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
              ) -> tuple[variable.Variable, variable.Variable]:
    """Per-class precision and support; see :func:`classification_summary`.

    Returns:
        ``(precision, support)``.
    """
    summary = ClassificationSummary(label_num, 1.0, ignore_label)(y, t)
    return summary[0], summary[-1]


def recall(y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
           ) -> tuple[variable.Variable, variable.Variable]:
    """Per-class recall and support; see :func:`classification_summary`.

    Returns:
        ``(recall, support)``.
    """
    summary = ClassificationSummary(label_num, 1.0, ignore_label)(y, t)
    return summary[1], summary[-1]


def fbeta_score(y: Any, t: Any, label_num: int | None = None, beta: float = 1.0,
                ignore_label: int = -1) -> tuple[variable.Variable, variable.Variable]:
    """Per-class F-beta score and support; see :func:`classification_summary`.

    Returns:
        ``(fbeta_score, support)``.
    """
    summary = ClassificationSummary(label_num, beta, ignore_label)(y, t)
    return summary[2], summary[-1]


def f1_score(y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
             ) -> tuple[variable.Variable, variable.Variable]:
    """Per-class F1 score (the harmonic mean of precision and recall) and support; see
    :func:`classification_summary`.

    Returns:
        ``(f1_score, support)``.
    """
    summary = ClassificationSummary(label_num, 1.0, ignore_label)(y, t)
    return summary[2], summary[-1]
