"""``transpose``: a differentiable permutation of axes.

Layer 5: imports variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import require_int
from chainer_compat.utils import type_check


class Transpose(FunctionNode):
    """Permutes the axes of its input (reverses them when ``axes`` is None)."""

    def __init__(self, axes: Any = None) -> None:
        self.axes = None if axes is None else tuple(require_int(axis, "each entry of axes")
                                                    for axis in axes)

    @property
    def label(self) -> str:
        return "Transpose"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axes is not None:
            _check_permutation(self.axes, type_check.eval(in_types[0].ndim))

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # Transpose runs on every Variable.T: skip the expressions when nothing can be wrong.
        if len(in_data) == 1 and self.axes is None:
            return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return x.transpose(self.axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        if self.axes is None:
            return Transpose(None).apply(grad_outputs)
        count = len(self.axes)
        inverse = [0] * count
        for position, axis in enumerate(self.axes):
            inverse[axis % count] = position
        return Transpose(inverse).apply(grad_outputs)


def _check_permutation(axes: tuple[int, ...], ndim: int) -> None:
    """Raises what NumPy's ``transpose`` raises, in its order, with a message that says more.

    compat: Chainer leaves the axes to NumPy, so its users catch ValueError and AxisError,
    and may match NumPy's wording ("axes don't match array", "repeated axis in transpose").
    """
    rule = f"axes must be a permutation of range(x.ndim) = range({ndim})"
    advice = "pass each axis of x once, or None to reverse them"
    if len(axes) != ndim:
        raise ValueError(f"{rule}, got {axes!r} of length {len(axes)}: "
                         f"axes don't match array; {advice}")
    seen: set[int] = set()
    for axis in axes:
        if not -ndim <= axis < ndim:
            raise numpy.exceptions.AxisError(axis, ndim, f"{rule}, got {axes!r} ({advice})")
        normalized = axis % ndim
        if normalized in seen:
            raise ValueError(f"{rule}, got {axes!r} (axis {normalized} appears twice): "
                             f"repeated axis in transpose; {advice}")
        seen.add(normalized)


def transpose(x: Any, axes: Any = None) -> variable.Variable:
    """Permutes the axes of ``x``.

    Args:
        x: Input Variable or array.
        axes: A permutation of ``range(x.ndim)`` (negative entries count from the end), or
            None to reverse the axes.

    Returns:
        A Variable holding a transposed view of ``x``'s array.

    Raises:
        TypeError: If an entry of ``axes`` is not an int.
        ValueError: If ``axes`` has not one entry per axis of ``x``, or repeats an axis.
        numpy.exceptions.AxisError: If an entry of ``axes`` is out of range (a ValueError
            and an IndexError).
    """
    y, = Transpose(axes).apply((x,))
    return y
