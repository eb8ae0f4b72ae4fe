"""``accuracy``: the fraction of samples whose highest score is at the true label.

Layer 5: imports backend, utils, variable, function_node and type_check. Not differentiable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import OldStyleCall
from chainer_compat.utils import type_check


class Accuracy(OldStyleCall, FunctionNode):
    """Classification accuracy. Use :func:`accuracy`.

    Compat: a ``FunctionNode`` (Chainer's is an old-style ``Function``); calling an instance
    works as Chainer's ``Function.__call__`` does.
    """

    def __init__(self, ignore_label: int | None = None) -> None:
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
        pred = y.argmax(axis=1).reshape(t.shape)
        if self.ignore_label is None:
            return utils.force_array((pred == t).mean(dtype=y.dtype)),
        valid = t != self.ignore_label
        total = valid.sum()
        correct = ((pred == t) & valid).sum()
        # No valid label at all reads as accuracy 0, not a division by zero.
        accuracy = xp.where(total == 0, 0.0, correct / xp.maximum(total, 1))
        return utils.force_array(accuracy, y.dtype),


def accuracy(y: Any, t: Any, ignore_label: int | None = None) -> variable.Variable:
    """Multiclass classification accuracy of a minibatch.

    Args:
        y: Scores of shape ``(N, C, ...)``: the prediction is the argmax over axis 1.
        t: Signed integer labels of shape ``(N, ...)``.
        ignore_label: Samples with this label are left out of the count (None: none are).

    Returns:
        A Variable of shape ``()`` and ``y``'s dtype (0 when every label is ignored). Not
        differentiable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    return Accuracy(ignore_label=ignore_label).apply((y, t))[0]
