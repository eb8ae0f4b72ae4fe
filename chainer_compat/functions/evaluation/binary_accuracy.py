"""``binary_accuracy``: the fraction of labels matched by the sign of the scores.

Layer 5: imports backend, utils, variable, function_node and type_check. Not differentiable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import OldStyleCall
from chainer_compat.utils import type_check


class BinaryAccuracy(OldStyleCall, FunctionNode):
    """Binary classification accuracy. Use :func:`binary_accuracy`.

    Compat: a ``FunctionNode`` (Chainer's is an old-style ``Function``); calling an instance
    works as Chainer's ``Function.__call__`` does.
    """

    # compat: the ignored label is fixed, and readable as a class attribute.
    ignore_label = -1

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
            t_type.shape == x_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        y = y.ravel()
        t = t.ravel()
        # An ignored label (-1) never equals a prediction (0 or 1), so it is never counted.
        correct = ((y >= 0) == t).sum()
        count = xp.maximum(1, (t != self.ignore_label).sum())
        return utils.force_array(correct / count, y.dtype),


def binary_accuracy(y: Any, t: Any) -> variable.Variable:
    """Binary classification accuracy: the prediction is 1 where ``y >= 0``, else 0.

    Args:
        y: Float scores of any shape.
        t: Signed integer labels of ``y``'s shape: 1, 0, or -1 (ignored).

    Returns:
        A Variable of shape ``()`` and ``y``'s dtype (0 when every label is ignored). Not
        differentiable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or mismatched shapes.
    """
    return BinaryAccuracy().apply((y, t))[0]
