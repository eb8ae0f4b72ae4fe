"""``crelu``: the concatenated ReLU, ``(max(0, x), max(0, -x))`` joined along an axis.

Layer 5: imports backend, function_node and the ``split_axis`` function.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.functions.activation._common import FloatActivation, is_int
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.utils import type_check


class CReLU(FloatActivation):
    """Concatenated ReLU along ``axis``: the output is twice as long there.

    Raises:
        TypeError: If ``axis`` is not an integer.
    """

    def __init__(self, axis: int = 1) -> None:
        if not is_int(axis):
            raise TypeError(f"axis must be an integer value, got {type(axis).__name__}")
        self.axis = int(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(
            in_types[0].dtype.kind == "f",
            in_types[0].ndim > self.axis,
            in_types[0].ndim >= -self.axis,
        )

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        super(FloatActivation, self)._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        zero = x.dtype.type(0)
        return xp.concatenate((xp.maximum(x, zero), xp.maximum(-x, zero)), axis=self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        positive_part, negative_part = split_axis(grad_outputs[0], 2, self.axis)
        return positive_part * (x > 0) - negative_part * (x < 0),


def crelu(x: Any, axis: int = 1) -> variable.Variable:
    """Concatenated ReLU: ``max(0, x)`` and ``max(0, -x)`` concatenated along ``axis``.

    Args:
        x: Input Variable or array of floats.
        axis: The axis to concatenate the two halves along.

    Returns:
        A Variable like ``x`` but twice as long along ``axis``.
    """
    y, = CReLU(axis=axis).apply((x,))
    return y
