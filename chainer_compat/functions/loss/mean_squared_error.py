"""``mean_squared_error``: the mean of ``(x0 - x1) ** 2`` over all elements.

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class MeanSquaredError(FunctionNode):
    """Mean squared error. Use :func:`mean_squared_error`."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x0", "x1"))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].shape == in_types[1].shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = (x0 - x1).ravel()
        if diff.dtype == numpy.float16:
            diff = diff.astype(numpy.float32)  # float16 sums overflow and lose precision
        return utils.force_array(diff.dot(diff) / diff.size, x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to

        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        diff = x0 - x1
        gx0 = broadcast_to(gy, diff.shape) * diff * (2.0 / diff.size)
        return tuple([gx0 if i == 0 else -gx0 for i in indexes])


def mean_squared_error(x0: Any, x1: Any) -> variable.Variable:
    """Mean of the squared differences of ``x0`` and ``x1`` (not halved).

    Args:
        x0: Float Variable or array.
        x1: Variable or array of ``x0``'s shape and dtype.

    Returns:
        A Variable of shape ``()``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return MeanSquaredError().apply((x0, x1))[0]
