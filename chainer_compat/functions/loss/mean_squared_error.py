"""``mean_squared_error``: the mean of ``(x0 - x1) ** 2`` over all elements.

Layer 5: imports utils, variable and the shared base in ``absolute_error``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.functions.loss.absolute_error import _DifferenceLoss


class MeanSquaredError(_DifferenceLoss):
    """Mean squared error. Use :func:`mean_squared_error`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = (x0 - x1).ravel()
        if backend.get_array_module(diff) is not numpy:
            if diff.dtype == numpy.float16:
                diff = diff.astype(numpy.float32)  # a float16 sum overflows from 65504
            return utils.force_array(diff.dot(diff) / diff.dtype.type(diff.size), x0.dtype),
        # compat: Chainer's CPU arithmetic. NumPy's float16 dot sums in float32 and rounds
        # once; NumPy 1 divides that scalar by the Python int size in float64.
        with numpy.errstate(over="ignore"):  # a float16 overflow is handled below
            total = diff.dot(diff)
        if diff.dtype == numpy.float16 and numpy.isinf(total):
            # Chainer's loss is inf here even where the mean fits in float16.
            wide = diff.astype(numpy.float32)
            total = wide.dot(wide)
        return utils.force_array(numpy.float64(total) / diff.size, x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to

        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        diff = x0 - x1
        gx0 = broadcast_to(gy, diff.shape) * diff * (2.0 / diff.size)
        return self._split(gx0, indexes)


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
