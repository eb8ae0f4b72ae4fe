"""``rollaxis``: moves one axis to a given position, like ``numpy.rollaxis``.

Layer 5: imports variable, function_node and the ``transpose`` function.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import axis_range_message, check_axis, require_int
from chainer_compat.utils import type_check


class Rollaxis(FunctionNode):
    """Rolls ``axis`` backwards until it lies before position ``start``.

    Raises:
        TypeError: If ``axis`` or ``start`` is not an int.
    """

    def __init__(self, axis: int, start: int) -> None:
        self.axis = require_int(axis, "axis")
        self.start = require_int(start, "start")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        check_axis(in_types[0], self.axis)
        # start may equal ndim (roll to the end), as in numpy.rollaxis.
        if self.start >= 0:
            type_check.expect(in_types[0].ndim >= self.start)
        else:
            type_check.expect(in_types[0].ndim >= -self.start)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        ndim = x.ndim
        # With type checks off, Chainer's numpy.rollaxis raises AxisError on these; the
        # modulo below would silently pick another axis.
        if not -ndim <= self.axis < ndim:
            raise numpy.exceptions.AxisError(
                self.axis, ndim, axis_range_message(self.axis, ndim) + "; pass an axis of x")
        if not -ndim <= self.start <= ndim:
            raise numpy.exceptions.AxisError(
                f"start must be in [-{ndim}, {ndim}] for the {ndim}-d x ({ndim} rolls the axis "
                f"to the end), got {self.start}: 'start' arg requires {-ndim} <= start < "
                f"{ndim + 1}, but {self.start} was passed in")
        axis = self.axis % ndim
        start = self.start + ndim if self.start < 0 else self.start
        if axis < start:
            start -= 1  # the position counts the axes before removing ``axis``
        axes = [a for a in range(ndim) if a != axis]
        axes.insert(start, axis)
        self._axes = tuple(axes)
        return x.transpose(self._axes),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # The inverse roll, a Rollaxis node as in Chainer: the moved axis, now at ``start``,
        # goes back before the axis that followed it.
        ndim = len(self._axes)
        axis = self.axis % ndim
        start = self.start + ndim if self.start < 0 else self.start
        if axis > start:
            axis += 1
        elif axis < start:
            start -= 1
        return Rollaxis(start, axis).apply(grad_outputs)


def rollaxis(x: Any, axis: int, start: int = 0) -> variable.Variable:
    """Moves axis ``axis`` of ``x`` to position ``start``, like ``numpy.rollaxis``.

    Args:
        x: Input Variable or array.
        axis: The axis to move.
        start: The axis is moved to lie before the axis at this position (``x.ndim``
            moves it to the end).

    Returns:
        A Variable holding a view of ``x``'s array with the axes reordered.

    Raises:
        TypeError: If ``axis`` or ``start`` is not an int.
        chainer_compat.utils.type_check.InvalidType: If ``axis`` or ``start`` is out of
            range.
    """
    y, = Rollaxis(axis, start).apply((x,))
    return y
