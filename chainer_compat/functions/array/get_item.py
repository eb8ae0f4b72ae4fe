"""``get_item``: differentiable indexing (basic and advanced)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _normalize_slices(slices: Any) -> Any:
    if isinstance(slices, list):
        slices = numpy.asarray(slices)
    if isinstance(slices, variable.Variable):
        slices = slices.array
    if isinstance(slices, tuple):
        return tuple(s.array if isinstance(s, variable.Variable) else s for s in slices)
    return slices


class GetItem(FunctionNode):
    """``x[slices]``; backward scatters the gradient into zeros."""

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize_slices(slices)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        xp = backend.get_array_module(x)
        return xp.asarray(x[self.slices]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        y, = GetItemGrad(self.slices, self._in_shape).apply((gy,))
        return y,


class GetItemGrad(FunctionNode):
    """The gradient of GetItem: adds the gradient into zeros at ``slices``."""

    def __init__(self, slices: Any, in_shape: tuple[int, ...]) -> None:
        self.slices = slices
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        if xp is numpy:
            numpy.add.at(gx, self.slices, gy)
        else:
            import cupyx  # CuPy's scatter-add; present whenever cupy is

            cupyx.scatter_add(gx, self.slices, gy)
        return gx,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        ggx, = grad_outputs
        return get_item(ggx, self.slices),


def get_item(x: Any, slices: Any) -> variable.Variable:
    """Returns ``x[slices]`` (differentiable; integers, slices, None, Ellipsis, arrays)."""
    y, = GetItem(slices).apply((x,))
    return y
