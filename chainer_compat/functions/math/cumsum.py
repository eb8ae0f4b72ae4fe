"""``cumsum``: the differentiable cumulative sum along an axis.

Layer 5: imports the core, the shared math helpers, flip and reshape.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.flip import flip
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math._common import check_axes, is_int
from chainer_compat.utils import type_check


class Cumsum(FunctionNode):
    """Cumulative sum along ``axis`` (of the flattened input when None).

    Raises:
        TypeError: If ``axis`` is not None or an int.
    """

    def __init__(self, axis: Any = None) -> None:
        if axis is not None and not is_int(axis):
            # compat: Chainer's wording.
            raise TypeError(f"axis must be int or None, got {axis!r}")
        self.axis = None if axis is None else int(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axes(in_types[0], None if self.axis is None else (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        if self.axis is None:
            x = x.reshape(-1)
        return utils.force_array(xp.cumsum(x, axis=0 if self.axis is None else self.axis),
                                 x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        axis = 0 if self.axis is None else self.axis
        # The cumulative sum from the end, as Chainer writes it: flipped, summed, flipped back.
        gx = flip(cumsum(flip(gy, axis), axis), axis)
        if self.axis is None:
            gx = reshape(gx, self._in_shape)
        return gx,


def cumsum(x: Any, axis: Any = None) -> variable.Variable:
    """Cumulative sum of the elements of ``x`` along ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: The axis (an int), or None to sum along the flattened input.

    Returns:
        The output Variable (1-D when ``axis`` is None).

    Raises:
        TypeError: If ``axis`` is not None or an int.
    """
    y, = Cumsum(axis).apply((x,))
    return y
