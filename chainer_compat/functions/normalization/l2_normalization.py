"""``normalize``: divides ``x`` by its L2 norm along the given axes.

Layer 5: imports backend, utils, variable, function_node, type_check and ``functions.math``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.sqrt import sqrt
from chainer_compat.functions.math.square import square
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class _SetItemZero(FunctionNode):
    """Scatters ``x`` to where ``mask`` is true in an array of zeros of ``mask``'s shape."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        y = backend.get_array_module(x).zeros(self.mask.shape, x.dtype)
        y[self.mask] = x
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = grad_outputs
        return gy[self.mask],


class NormalizeL2(FunctionNode):
    """L2 normalization. Use :func:`normalize`."""

    def __init__(self, eps: float = 1e-5, axis: Any = 1) -> None:
        self.eps = eps
        self.axis: tuple[int, ...] | None
        if axis is None:
            self.axis = None  # every axis, as NumPy's sum takes it (Chainer accepts it too)
        elif isinstance(axis, (int, numpy.integer)):
            self.axis = (int(axis),)
        else:
            self.axis = tuple(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.axis is None:
            return
        ndim = type_check.eval(x_type.ndim)
        # compat: Chainer leaves the axes to NumPy's sum, whose AxisError is a ValueError and
        # an IndexError; the default axis=1 hits it on a 1-d x.
        for axis in self.axis:
            if not -ndim <= axis < ndim:
                shown = self.axis if len(self.axis) > 1 else axis
                raise numpy.exceptions.AxisError(
                    axis, ndim,
                    f"axis must be in [-{ndim}, {ndim}) for a {ndim}-d x "
                    f"(axis=-1 names its last axis), got {shown}")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        norm = xp.sqrt(sum_in_numpy1_order(xp.square(x), axis=self.axis, keepdims=True))
        norm += x.dtype.type(self.eps)
        return utils.force_array(x / norm, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        norm_no_eps = sqrt(_sum(square(x), axis=self.axis, keepdims=True))
        norm = norm_no_eps + self.eps
        projection = _sum(x * gy, axis=self.axis, keepdims=True)
        # A zero slice has x == 0 there, so its second term vanishes: it is set to 0 rather
        # than computed as 0 / 0, whose nan would reach the double backward.
        # force_array: on a 0-d x the mask is a NumPy scalar, which cannot be assigned to.
        nonzero = utils.force_array(norm_no_eps.array != 0)
        projection, = _SetItemZero(nonzero).apply((projection[nonzero] / norm_no_eps[nonzero],))
        # One division by norm ** 2 at the end, as Chainer orders it: in float16 a tiny norm
        # squares to 0 and a zero slice's gradient overflows to inf, where dividing the
        # projection separately would give 0 / 0 = nan.
        return (gy * norm - projection * x) / norm ** 2,


def normalize(x: Any, eps: float = 1e-5, axis: Any = 1) -> variable.Variable:
    """L2 normalization ``y = x / (||x||_2 + eps)``, the norm taken along ``axis``.

    Args:
        x: Float input Variable or array.
        eps: Added to the norm to avoid dividing by zero.
        axis: The axis, or tuple of axes, of the norm (None: all axes).

    Returns:
        A Variable of ``x``'s shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On a non-float input.
        numpy.exceptions.AxisError: On an axis out of range, as the default ``axis=1`` is on
            a 1-d ``x`` (a ValueError and an IndexError).
    """
    return NormalizeL2(eps, axis).apply((x,))[0]
