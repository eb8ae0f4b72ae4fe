"""``prod``: the differentiable product over some axes, exact even where inputs are zero.

Layer 5: imports the core, the shared math helpers and the array functions it composes.
NOTE [exclusive products]: the gradient of a product with respect to one factor is the product
of all the other factors. Dividing the output by the factor fails at zeros, so backward builds
the products of the factors before and after each position as cumulative products (as Chainer
does), whose own gradients are again cumulative: every order of gradient exists and stays
exact.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.expand_dims import expand_dims
from chainer_compat.functions.array.flip import flip
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math._common import (
    AxisReduction,
    reduced_axes,
)
from chainer_compat.functions.math.cumprod import cumprod


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
        gy, = grad_outputs
        axes = reduced_axes(x.ndim, self.axis)
        if not self.keepdims:
            for axis in sorted(axes):
                gy = expand_dims(gy, axis)
        kept = tuple(a for a in range(x.ndim) if a not in axes)
        count = utils.size_of_shape(tuple(x.shape[a] for a in axes))
        # NOTE [exclusive products], through Chainer's nodes: the reduced axes moved first and
        # flattened, then the products before and after each position, as cumulative
        # products shifted by one.
        order = axes + kept
        moved = transpose(x, order)
        moved_shape = moved.shape
        kept_shape = moved_shape[len(axes):]
        rows = reshape(moved, (count,) + kept_shape)
        xp = backend.get_array_module(x.array)

        def shifted_cumprod(a: Any) -> Any:
            ones = xp.ones((1,) + kept_shape, a.dtype)
            shifted, _ = split_axis(concat([ones, a], 0), (-1,), 0)
            return cumprod(shifted, 0)

        others = shifted_cumprod(rows) * flip(shifted_cumprod(flip(rows, 0)), 0)
        others = transpose(reshape(others, moved_shape), tuple(numpy.argsort(order)))
        return others * gy,


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
