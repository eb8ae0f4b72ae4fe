"""``CRF1d``: a link holding the transition costs of a linear-chain CRF.

Layer 8: imports functions, initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import initializers, link, variable
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.functions.loss.crf1d import argmax_crf1d, crf1d


def _longest_first(xs: Any) -> Any:
    """Indices that order the sequences by length, longest first."""
    # compat: numpy's default argsort, as Chainer uses, so ties are ordered as there.
    return numpy.argsort([-len(x) for x in xs]).astype(numpy.int32)


def _permuted(items: Any, indices: Any) -> list[Any]:
    return [items[index] for index in indices]


def _unpermuted(items: Any, indices: Any) -> list[Any]:
    restored: list[Any] = [None] * len(items)
    for position, index in enumerate(indices):
        restored[index] = items[position]
    return restored


class CRF1d(link.Link):
    """Linear-chain conditional random field: the loss :func:`~chainer_compat.functions.crf1d`
    and the decoder :func:`~chainer_compat.functions.argmax_crf1d` with a learned ``cost``.

    Args:
        n_label: Number of labels ``K``.
        initial_cost: Initializer of ``cost`` (an initializer, array or scalar); zeros when
            None.

    Attributes:
        cost: Transition scores of shape ``(K, K)``.
    """

    cost: variable.Parameter

    def __init__(self, n_label: int, initial_cost: Any = None) -> None:
        super().__init__()
        if initial_cost is None:
            initial_cost = initializers.Zero()
        with self.init_scope():
            self.cost = variable.Parameter(initializers._get_initializer(initial_cost),
                                           (n_label, n_label))

    def forward(self, xs: Any, ys: Any, reduce: str = "mean",
                transpose: bool = False) -> variable.Variable:
        """Returns the negative log-likelihood of ``ys`` given the emission scores ``xs``.

        Args:
            xs: Emission scores: time-major (see :func:`crf1d`), or with ``transpose=True`` a
                list of per-sequence arrays of shape ``(T_b, K)`` in any order of length.
            ys: Labels, in the same layout as ``xs``.
            reduce: ``'mean'`` or ``'no'``; with ``'no'`` and ``transpose=True`` the losses
                are in longest-first order.
            transpose: Whether ``xs`` and ``ys`` are batch-major.
        """
        if transpose:
            order = _longest_first(xs)
            xs = transpose_sequence(_permuted(xs, order))
            ys = transpose_sequence(_permuted(ys, order))
        return crf1d(self.cost, xs, ys, reduce)

    def argmax(self, xs: Any, transpose: bool = False) -> tuple[variable.Variable, list[Any]]:
        """Returns the best path of each sequence and its score.

        Args:
            xs: Emission scores, time-major, or batch-major with ``transpose=True``.
            transpose: Whether ``xs`` is batch-major; the paths are then per sequence, in the
                order of ``xs``.

        Returns:
            ``(score, path)`` as :func:`argmax_crf1d` returns them.
        """
        if not transpose:
            return argmax_crf1d(self.cost, xs)
        order = _longest_first(xs)
        score, path = argmax_crf1d(self.cost, transpose_sequence(_permuted(xs, order)))
        per_sequence = [labels.array for labels in transpose_sequence(path)]
        # compat: the paths go back to the caller's order but the scores stay longest first.
        return score, _unpermuted(per_sequence, order)
