"""``diagonal``: takes (batched) diagonals, like ``numpy.diagonal``.

Layer 5: imports backend, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Diagonal(FunctionNode):
    """The diagonal at ``offset`` of the matrices spanned by ``axis1`` and ``axis2``."""

    def __init__(self, offset: int, axis1: int, axis2: int) -> None:
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(max(self.axis1, self.axis2) < in_types[0].ndim)
        type_check.expect(-in_types[0].ndim <= min(self.axis1, self.axis2))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        # NumPy's diagonal is a read-only view: copy so that the output can be written to.
        return x.diagonal(offset=self.offset, axis1=self.axis1, axis2=self.axis2).copy(),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return DiagonalGrad(self._in_shape, self.offset, self.axis1, self.axis2).apply(
            grad_outputs)


class DiagonalGrad(FunctionNode):
    """Gradient of Diagonal: the gradient written onto the diagonal of zeros."""

    def __init__(self, out_shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> None:
        self.out_shape = out_shape
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.out_shape, gy.dtype)
        ndim = gx.ndim
        axis1 = self.axis1 % ndim
        axis2 = self.axis2 % ndim
        # A view with the two matrix axes last, whose diagonal is written by index arrays
        # (NumPy's own diagonal view is read-only).
        rest = [axis for axis in range(ndim) if axis not in (axis1, axis2)]
        matrices = gx.transpose(rest + [axis1, axis2])
        length = gy.shape[-1]
        rows = xp.arange(length) + max(0, -self.offset)
        matrices[..., rows, rows + self.offset] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return Diagonal(self.offset, self.axis1, self.axis2).apply(grad_outputs)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> variable.Variable:
    """Takes the diagonal of ``x``; axes other than ``axis1`` and ``axis2`` are batch axes.

    Args:
        x: Input Variable or array of at least two dimensions.
        offset: Offset from the main diagonal (positive: above it).
        axis1: The axis of rows.
        axis2: The axis of columns.

    Returns:
        A Variable with the two axes replaced by one trailing diagonal axis.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If an axis is out of range.
    """
    y, = Diagonal(offset, axis1, axis2).apply((x,))
    return y
