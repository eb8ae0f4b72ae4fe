"""``absolute_error``: the elementwise ``|x0 - x1|``.

Layer 5: imports backend, utils, variable, function_node and type_check; the other
difference losses import ``_DifferenceLoss`` from here.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class _DifferenceLoss(FunctionNode):
    """Base of the losses of ``x0 - x1`` (absolute, squared and their means).

    It holds their shared type check (two float inputs of one shape and dtype) and the way
    their backward hands ``gx0`` to ``x0`` and ``-gx0`` to ``x1``.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x0", "x1"))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].shape == in_types[1].shape,
        )

    @staticmethod
    def _split(gx0: Any, indexes: tuple[int, ...]) -> tuple[Any, ...]:
        """Returns ``gx0`` for ``x0`` and ``-gx0`` for ``x1``, for each requested index."""
        return tuple([gx0 if i == 0 else -gx0 for i in indexes])


class AbsoluteError(_DifferenceLoss):
    """Elementwise absolute error. Use :func:`absolute_error`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        self.diff = x0 - x1
        return utils.force_array(abs(self.diff), x0.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = grad_outputs
        gx = gy * backend.get_array_module(self.diff).sign(self.diff)
        return self._split(gx, indexes)


def absolute_error(x0: Any, x1: Any) -> variable.Variable:
    """Elementwise absolute difference ``|x0 - x1|``.

    Args:
        x0: Float Variable or array.
        x1: Variable or array of ``x0``'s shape and dtype.

    Returns:
        A Variable of the inputs' shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On non-float or mismatched inputs.
    """
    return AbsoluteError().apply((x0, x1))[0]
