"""``max``, ``min`` (differentiable reductions) and ``argmax``, ``argmin`` (index lookups).

Layer 5: imports the core, the shared math helpers and the array functions it composes.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import Reshape
from chainer_compat.functions.math._common import (
    AxisReduction,
    check_axes,
    is_int,
    keepdims_shape,
)
from chainer_compat.utils import type_check


class SelectorBase(AxisReduction):
    """Picks one element over ``axis``; the gradient flows to every element equal to it.

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ValueError: If ``axis`` repeats an axis.
    """

    def _fwd(self, x: Any, xp: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _fwd(x, xp)")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        return utils.force_array(self._fwd(x, xp)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        shape = keepdims_shape(x.shape, self.axis)
        # compat: gy and y each pass a Reshape node, even to their own shape (keepdims), as
        # in Chainer, whose backward reshapes to a list, which never equals a shape tuple.
        gy, = Reshape(shape).apply(grad_outputs)
        y, = Reshape(shape).apply((y,))
        # Ties share the gradient in full, each picked element getting all of it (as Chainer).
        selected = x.array == y.array
        return broadcast_to(gy, x.shape) * selected,


class Max(SelectorBase):
    """Maximum over ``axis``."""

    def _fwd(self, x: Any, xp: Any) -> Any:
        return xp.amax(x, axis=self.axis, keepdims=self.keepdims)


class Min(SelectorBase):
    """Minimum over ``axis``."""

    def _fwd(self, x: Any, xp: Any) -> Any:
        return xp.amin(x, axis=self.axis, keepdims=self.keepdims)


class IndexSelectorBase(FunctionNode):
    """Finds the index of one element over ``axis`` (int32 output, no gradient).

    Raises:
        TypeError: If ``axis`` is not None or an int.
    """

    def __init__(self, axis: Any = None) -> None:
        if axis is None:
            self.axis = None
        elif is_int(axis):
            self.axis = int(axis)
        else:
            # compat: Chainer's sentence first, which code may match.
            raise TypeError(f"None or int are required\naxis must be None or an int, got "
                            f"{axis!r}")

    def _fwd(self, x: Any, xp: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _fwd(x, xp)")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axes(in_types[0], None if self.axis is None else (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        return utils.force_array(self._fwd(x, xp).astype(numpy.int32)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return None,


class ArgMin(IndexSelectorBase):
    """Index of the minimum over ``axis`` (of the flattened input when None)."""

    def _fwd(self, x: Any, xp: Any) -> Any:
        return xp.argmin(x, axis=self.axis)


class ArgMax(IndexSelectorBase):
    """Index of the maximum over ``axis`` (of the flattened input when None)."""

    def _fwd(self, x: Any, xp: Any) -> Any:
        return xp.argmax(x, axis=self.axis)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Maximum of the elements of ``x`` over ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: None (all axes), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Returns:
        The output Variable.
    """
    y, = Max(axis, keepdims).apply((x,))
    return y


def min(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Minimum of the elements of ``x`` over ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: None (all axes), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Returns:
        The output Variable.
    """
    y, = Min(axis, keepdims).apply((x,))
    return y


def argmax(x: Any, axis: Any = None) -> variable.Variable:
    """Index of the maximum of ``x`` over ``axis`` (int32, not differentiable).

    Args:
        x: Input Variable or array (float).
        axis: None (index into the flattened input) or an int.

    Returns:
        The output Variable.
    """
    y, = ArgMax(axis).apply((x,))
    return y


def argmin(x: Any, axis: Any = None) -> variable.Variable:
    """Index of the minimum of ``x`` over ``axis`` (int32, not differentiable).

    Args:
        x: Input Variable or array (float).
        axis: None (index into the flattened input) or an int.

    Returns:
        The output Variable.
    """
    y, = ArgMin(axis).apply((x,))
    return y
