"""``cumprod``: the differentiable cumulative product along an axis.

Layer 5: imports the core, the shared math helpers and the array functions it composes. As in
Chainer, the gradient is a cumulative product-sum (``Cumprodsum``, a first-order linear
recurrence) run from the end: no division, so it stays exact where the input has zeros, and
differentiable again, which gives gradients of any order.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.flatten import flatten
from chainer_compat.functions.array.flip import flip
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.math._common import check_axes, is_int
from chainer_compat.utils import type_check


class Cumprodsum(FunctionNode):
    """From ``(xmul, xadd)`` along ``axis``: ``y[0] = xadd[0]``,
    ``y[i] = y[i-1] * xmul[i-1] + xadd[i]`` (``xmul`` has one entry fewer along ``axis``)."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xmul, xadd = inputs
        xp = backend.get_array_module(xmul)
        y = xp.empty_like(xadd)
        leading = (slice(None),) * self.axis
        running = xp.zeros_like(xadd[leading + (0,)])
        for i in range(xadd.shape[self.axis]):
            running += xadd[leading + (i,)]
            y[leading + (i,)] = running
            if i < xmul.shape[self.axis]:
                running *= xmul[leading + (i,)]
        return y,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        xmul, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        g_xadd = _flipped_cumprodsum(xmul, grad_outputs[0], self.axis)
        _, g_xmul = split_axis(g_xadd, (1,), self.axis)
        y, _ = split_axis(y, (-1,), self.axis)
        grads = (g_xmul * y, g_xadd)
        return tuple(grads[index] for index in indexes)


def _flipped_cumprodsum(xmul: Any, xadd: Any, axis: int) -> Any:
    """:class:`Cumprodsum` run from the end of ``axis``."""
    z, = Cumprodsum(axis).apply((flip(xmul, axis), flip(xadd, axis)))
    return flip(z, axis)


class Cumprod(FunctionNode):
    """Cumulative product along ``axis`` (of the flattened input when None).

    Raises:
        TypeError: If ``axis`` is not None or an int.
    """

    def __init__(self, axis: Any = None) -> None:
        if axis is not None and not is_int(axis):
            # compat: Chainer's wording and type.
            raise TypeError(f"axis must be int or None, got {axis!r}")
        self.axis = None if axis is None else int(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axes(in_types[0], None if self.axis is None else (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        return xp.cumprod(x, axis=self.axis),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        xp = backend.get_array_module(x.array)
        shape = x.shape if self.axis is None else None
        if self.axis is None:
            x = flatten(x)
        axis = 0 if self.axis is None else self.axis % y.ndim
        if y.shape[axis] <= 1:
            gx = gy
        else:
            # dy[i]/dx[j] = y[j-1] * x[j+1] * ... * x[i] for i >= j: gy summed from the end
            # with the later factors, then scaled by y one step before (1 at the start).
            _, later = split_axis(x, (1,), axis)
            gx = _flipped_cumprodsum(later, gy, axis)
            y, y_last = split_axis(y, (-1,), axis)
            gx = gx * concat([xp.ones_like(y_last.array), y], axis=axis)
        if shape is not None:
            gx = reshape(gx, shape)
        return gx,


def cumprod(x: Any, axis: Any = None) -> variable.Variable:
    """Cumulative product of the elements of ``x`` along ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: The axis (an int), or None to multiply along the flattened input.

    Returns:
        The output Variable (1-D when ``axis`` is None).

    Raises:
        TypeError: If ``axis`` is not None or an int.
    """
    y, = Cumprod(axis).apply((x,))
    return y
