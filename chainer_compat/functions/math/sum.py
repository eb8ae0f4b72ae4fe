"""``sum`` and ``sum_to``: differentiable reductions by addition."""

from __future__ import annotations

import builtins
from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _normalize_axis(axis: Any) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, int):
        return (axis,)
    if isinstance(axis, tuple) and builtins.all(isinstance(a, int) for a in axis):
        if len(set(axis)) != len(axis):
            raise ValueError("duplicate value in axis: ({})".format(", ".join(map(str, axis))))
        return axis
    raise TypeError(f"axis must be None, an int or a tuple of ints, got {axis!r}")


class Sum(FunctionNode):
    """Sums over ``axis`` (all axes when None)."""

    keepdims = False

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = _normalize_axis(axis)
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        if self.axis is not None:
            for axis in self.axis:
                if axis >= 0:
                    type_check.expect(axis < in_types[0].ndim)
                else:
                    type_check.expect(-axis - 1 < in_types[0].ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return utils.force_array(xp.sum(x, axis=self.axis, keepdims=self.keepdims)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.array.broadcast import broadcast_to
        from chainer_compat.functions.array.reshape import reshape

        gy, = grad_outputs
        ndim = len(self._in_shape)
        if not (ndim == 0 or self.axis is None or self.keepdims):
            axes = sorted(a % ndim for a in self.axis)
            shape = list(gy.shape)
            for axis in axes:
                shape.insert(axis, 1)
            gy = reshape(gy, tuple(shape))
        elif self.axis is None and not self.keepdims and ndim:
            gy = reshape(gy, (1,) * ndim)
        return broadcast_to(gy, self._in_shape),


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Sums the elements of ``x`` over ``axis`` (all elements when None)."""
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
    """Sums ``x`` down to ``shape`` (differentiable); ``x`` itself when it already has it."""
    shape = tuple(shape)
    if getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    y, = SumTo(shape).apply((x,))
    return y
