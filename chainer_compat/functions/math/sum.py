"""``sum`` and ``sum_to``: differentiable reductions by addition.

Layer 5: imports the core, the shared math helpers, and (inside backward, to avoid an import
cycle with broadcast.py) broadcast_to and reshape.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math._common import (
    AxisReduction,
    keepdims_shape,
)
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class Sum(AxisReduction):
    """Sums over ``axis`` (all axes when None).

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ValueError: If ``axis`` repeats an axis.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        # compat: long float runs are added in NumPy 1's chunked order, as Chainer's x.sum was
        # (NOTE [NumPy 1 sum order]); convolution bias gradients come through here too.
        return utils.force_array(
            sum_in_numpy1_order(x, axis=self.axis, keepdims=self.keepdims)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.array.reshape import reshape

        gy, = grad_outputs
        # A full sum's 0-d gradient broadcasts as it is: no Reshape node for hooks to see, as
        # in Chainer.
        if not self.keepdims and self.axis is not None:
            gy = reshape(gy, keepdims_shape(self._in_shape, self.axis))
        return broadcast_to(gy, self._in_shape),


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Sums the elements of ``x`` over ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: None (all axes), an int, or a tuple of ints; negative axes count from the end.
        keepdims: Keep the reduced axes with length one.

    Returns:
        The output Variable.

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ValueError: If ``axis`` repeats an axis.
    """
    y, = Sum(axis, keepdims).apply((x,))
    return y


class SumTo(FunctionNode):
    """Sums its input down to ``shape``, the reverse of broadcasting."""

    def __init__(self, shape: Any) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        ndim = type_check.make_variable(len(self._shape), "len(shape)")
        type_check.expect(in_types[0].ndim >= ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return utils.sum_to(x, self._shape),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to

        gy, = grad_outputs
        return broadcast_to(gy, self._in_shape),


def sum_to(x: Any, shape: Any) -> variable.Variable:
    """Sums ``x`` down to ``shape``: the gradient of broadcasting ``shape`` to ``x.shape``.

    Args:
        x: Input Variable or array.
        shape: The target shape; ``x.shape`` must broadcast from it.

    Returns:
        A Variable of ``shape`` (``x`` itself, as a Variable, when it already has it).
    """
    shape = tuple(shape)
    if getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    y, = SumTo(shape).apply((x,))
    return y
