"""``squared_error``: the elementwise ``(x0 - x1) ** 2``.

Layer 5: imports utils, variable and the shared base in ``absolute_error``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.functions.loss.absolute_error import _DifferenceLoss


class SquaredError(_DifferenceLoss):
    """Elementwise squared error. Use :func:`squared_error`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        return utils.force_array(diff * diff, x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        g = gy * 2 * (x0 - x1)
        return self._split(g, indexes)


def squared_error(x0: Any, x1: Any) -> variable.Variable:
    """Elementwise squared difference ``(x0 - x1) ** 2`` (not halved).

    Args:
        x0: Float Variable or array.
        x1: Variable or array of ``x0``'s shape and dtype.

    Returns:
        A Variable of the inputs' shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return SquaredError().apply((x0, x1))[0]


def squared_difference(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise squared difference ``(x1 - x2) ** 2``: :func:`squared_error` under Chainer's
    other name.

    Args:
        x1: Float Variable or array.
        x2: Variable or array of ``x1``'s shape and dtype.

    Returns:
        A Variable of the inputs' shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return squared_error(x1, x2)
