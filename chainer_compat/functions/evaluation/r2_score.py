"""``r2_score``: the coefficient of determination of predictions against targets.

Layer 5: imports backend, utils, variable, function_node and type_check. Not differentiable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import OldStyleCall
from chainer_compat.utils import type_check


class R2_score(OldStyleCall, FunctionNode):  # the name is Chainer's
    """R^2 score. Use :func:`r2_score`.

    Compat: a ``FunctionNode`` (Chainer's is an old-style ``Function``); calling an instance
    works as Chainer's ``Function.__call__`` does.
    """

    def __init__(self, sample_weight: Any, multioutput: str) -> None:
        if sample_weight is not None:
            raise NotImplementedError(
                f"sample_weight of r2_score must be None, got {type(sample_weight).__name__}")
        if multioutput not in ("uniform_average", "raw_values"):
            # compat: Chainer's sentence first, which code may match.
            raise ValueError(
                "invalid multioutput argument\nmultioutput of r2_score must be "
                f"'uniform_average' or 'raw_values', got {multioutput!r}")
        self.multioutput = multioutput

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("pred", "true"))
        pred_type, true_type = in_types
        type_check.expect(
            pred_type.dtype.kind == "f",
            true_type.dtype.kind == "f",
        )
        type_check.expect(pred_type.shape == true_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        pred, true = inputs
        xp = backend.get_array_module(pred)
        residual = xp.sum((pred - true) ** 2, axis=0)
        spread = xp.sum((true - xp.mean(true, axis=0)) ** 2, axis=0)
        # A constant target scores 0 (not a division by zero).
        constant = spread == 0
        score = xp.where(constant, 0.0, 1 - residual / xp.where(constant, 1, spread))
        score = utils.force_array(score, pred.dtype)
        if self.multioutput == "uniform_average":
            return utils.force_array(score.mean()),
        return score,


def r2_score(pred: Any, true: Any, sample_weight: Any = None,
             multioutput: str = "uniform_average") -> variable.Variable:
    """R^2 (coefficient of determination) of ``pred`` against ``true``, per output column.

    Args:
        pred: Float predictions; axis 0 indexes samples.
        true: Float targets of ``pred``'s shape.
        sample_weight: Must be None (kept for scikit-learn compatibility).
        multioutput: ``'uniform_average'`` averages the scores of all outputs;
            ``'raw_values'`` returns one score per output.

    Returns:
        A Variable of shape ``()`` or ``pred.shape[1:]``, in ``pred``'s dtype. Not
        differentiable.

    Raises:
        NotImplementedError: If ``sample_weight`` is given.
        ValueError: On an invalid ``multioutput``.
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return R2_score(sample_weight=sample_weight, multioutput=multioutput).apply((pred, true))[0]
