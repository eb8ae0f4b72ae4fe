"""``prod``: the differentiable product over some axes, exact even where inputs are zero.

Layer 5: imports the core, the shared math helpers and the array functions it composes.
NOTE [exclusive products]: the gradient of a product with respect to one factor is the product
of all the other factors. Dividing the output by the factor fails at zeros, so backward builds
the products of the factors before and after each position with two linear recurrences
(``_LinearRecurrence``) whose own gradients are linear recurrences again: every order of
gradient exists and stays exact.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math._common import (
    AxisReduction,
    keepdims_shape,
    reduced_axes,
)


class Prod(AxisReduction):
    """Product over ``axis`` (all axes when None).

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ValueError: If ``axis`` repeats an axis.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return utils.force_array(x.prod(axis=self.axis, keepdims=self.keepdims)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy = reshape(grad_outputs[0], keepdims_shape(x.shape, self.axis))
        return _product_of_others(x, reduced_axes(x.ndim, self.axis)) * broadcast_to(gy, x.shape),


def _product_of_others(x: variable.Variable, axes: tuple[int, ...]) -> variable.Variable:
    """For each element, the product of the other elements of its reduction (see NOTE)."""
    kept = tuple(a for a in range(x.ndim) if a not in axes)
    order = axes + kept
    moved = x if order == tuple(range(x.ndim)) else transpose(x, order)
    moved_shape = moved.shape
    kept_shape = tuple(x.shape[a] for a in kept)
    count = utils.size_of_shape(tuple(x.shape[a] for a in axes))
    if count == 0:
        return x  # empty: there is nothing to fill in
    rows = reshape(moved, (count,) + kept_shape)
    xp = backend.get_array_module(x.array)
    first = xp.zeros((count,) + kept_shape, x.dtype)
    first[0] = 1
    last = xp.zeros((count,) + kept_shape, x.dtype)
    last[-1] = 1
    before, = _LinearRecurrence(False).apply((rows[:-1], first))
    after, = _LinearRecurrence(True).apply((rows[1:], last))
    others = reshape(before * after, moved_shape)
    if order == tuple(range(x.ndim)):
        return others
    return transpose(others, tuple(numpy.argsort(order)))


class _LinearRecurrence(FunctionNode):
    """Runs ``y[i] = m[i-1] * y[i-1] + a[i]`` along axis 0 (``y[0] = a[0]``).

    With ``reverse`` it runs from the end instead: ``y[i] = m[i] * y[i+1] + a[i]``. The
    multipliers ``m`` have one row fewer than ``a``. The gradient with respect to ``a`` is the
    recurrence in the other direction with the same ``m``.
    """

    def __init__(self, reverse: bool) -> None:
        self.reverse = reverse

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        multipliers, addends = inputs
        y = addends.copy()
        count = y.shape[0]
        if self.reverse:
            for i in range(count - 2, -1, -1):
                y[i] += multipliers[i] * y[i + 1]
        else:
            for i in range(1, count):
                y[i] += multipliers[i - 1] * y[i - 1]
        return y,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        multipliers, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        g_addends, = _LinearRecurrence(not self.reverse).apply((multipliers, grad_outputs[0]))
        grads: list[Any] = []
        if 0 in indexes:
            if self.reverse:
                grads.append(g_addends[:-1] * y[1:])
            else:
                grads.append(g_addends[1:] * y[:-1])
        if 1 in indexes:
            grads.append(g_addends)
        return tuple(grads)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Product of the elements of ``x`` over ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: None (all axes), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with length one.

    Returns:
        The output Variable.
    """
    y, = Prod(axis, keepdims).apply((x,))
    return y
