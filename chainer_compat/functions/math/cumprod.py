"""``cumprod``: the differentiable cumulative product along an axis.

Layer 5: imports the core, ``get_item``, ``pad``, ``reshape`` and the shared math helpers.
The gradient is a first-order linear recurrence (see ``_LinearScan``), so it needs no division
and stays exact when the input has zeros; the recurrence is differentiable itself, which
gives gradients of any order.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.get_item import get_item
from chainer_compat.functions.array.pad import pad
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math._common import check_axes, is_int
from chainer_compat.utils import type_check


def _shift(x: Any, axis: int, forward: bool, fill: float) -> Any:
    """Moves ``x`` one step along ``axis`` (toward the end when ``forward``, else toward the
    start), filling the freed slot with ``fill``; differentiable."""
    keep = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    keep[axis] = slice(None, -1) if forward else slice(1, None)
    widths[axis] = (1, 0) if forward else (0, 1)
    return pad(get_item(x, tuple(keep)), widths, "constant", constant_values=fill)


class _LinearScan(FunctionNode):
    """Solves ``s[j] = b[j] + a[j] * s[j - 1]`` along ``axis`` (``s[j + 1]`` with ``reverse``).

    The recurrence starts at the first element (the last with ``reverse``), whose ``a`` is
    unused. Inputs ``a`` and ``b`` have one shape.
    """

    def __init__(self, axis: int, reverse: bool) -> None:
        self.axis = axis
        self.reverse = reverse

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xp = backend.get_array_module(a, b)
        steps = xp.moveaxis(a, self.axis, 0)
        terms = xp.moveaxis(b, self.axis, 0)
        result = xp.empty_like(terms)
        order = range(len(terms) - 1, -1, -1) if self.reverse else range(len(terms))
        previous = None
        for j in order:
            result[j] = terms[j] if previous is None else terms[j] + steps[j] * result[previous]
            previous = j
        return xp.ascontiguousarray(xp.moveaxis(result, 0, self.axis)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        a, = self.get_retained_inputs()
        s, = self.get_retained_outputs()
        gs, = grad_outputs
        # The transposed recurrence runs the other way, with a moved by one step.
        along = not self.reverse
        t, = _LinearScan(self.axis, along).apply((_shift(a, self.axis, self.reverse, 0.0), gs))
        return t * _shift(s, self.axis, along, 0.0), t


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
        if self.axis is None:
            x = reshape(x, (-1,))
        axis = 0 if self.axis is None else self.axis % x.ndim
        if x.shape[axis] == 0:
            gx = gy
        else:
            # dy[i]/dx[j] = y[j - 1] * x[j + 1] * ... * x[i] for i >= j: sum those against gy
            # from the end, then scale by y[j - 1] (one before the start).
            tail, = _LinearScan(axis, True).apply((_shift(x, axis, False, 0.0), gy))
            gx = tail * _shift(y, axis, True, 1.0)
        if self.axis is None:
            gx = reshape(gx, self.inputs[0].shape)
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
