"""``mean_absolute_error``: the mean of ``|x0 - x1|`` over all elements.

Layer 5: imports backend, utils, variable and the shared base in ``absolute_error``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.functions.loss.absolute_error import _DifferenceLoss
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class MeanAbsoluteError(_DifferenceLoss):
    """Mean absolute error. Use :func:`mean_absolute_error`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        self.diff = x0 - x1
        # float16 sums overflow and lose precision: accumulate in float32.
        wide = numpy.float32 if x0.dtype == numpy.float16 else None
        if type(self.diff) is not numpy.ndarray:
            total = abs(self.diff).sum(dtype=wide)
            return utils.force_array(total / self.diff.size, x0.dtype),
        # compat: Chainer's CPU arithmetic: the sum in NumPy 1's order (NOTE [NumPy 1 sum
        # order]), divided by the int size as NumPy 1 divides a scalar by it, in float64.
        total = sum_in_numpy1_order(abs(self.diff), dtype=wide)
        return utils.force_array(numpy.float64(total) / self.diff.size, x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to

        gy, = grad_outputs
        sign = backend.get_array_module(self.diff).sign(self.diff)
        # compat: the coefficient is a scalar of gy's dtype, as Chainer's, so the node is
        # labelled with it ('_ * 0.083333336' for float32); the product is the same.
        coefficient = gy.dtype.type(1.0 / self.diff.size)
        gx0 = broadcast_to(gy * coefficient, self.diff.shape) * sign
        return self._split(gx0, indexes)


def mean_absolute_error(x0: Any, x1: Any) -> variable.Variable:
    """Mean of the absolute differences of ``x0`` and ``x1``.

    Args:
        x0: Float Variable or array.
        x1: Variable or array of ``x0``'s shape and dtype.

    Returns:
        A Variable of shape ``()``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return MeanAbsoluteError().apply((x0, x1))[0]
