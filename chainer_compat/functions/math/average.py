"""``average``: the differentiable (weighted) mean over some axes; ``F.mean`` is its alias.

Layer 5: imports the core, the shared math helpers and the array functions it composes.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math import sum as _sum
from chainer_compat.functions.math._common import (
    AxisReduction,
    is_int,
    keepdims_shape,
    normalize_axis,
)
from chainer_compat.utils._reduction_order import mean_in_numpy1_order


class Mean(AxisReduction):
    """Mean over ``axis`` (all axes when None): an :class:`AxisReduction`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        if self.axis is None:
            count = x.size
        else:
            count = utils.size_of_shape(tuple(x.shape[a] for a in self.axis))
        if count == 0:
            # compat: Chainer divides by the element count in Python, so an empty mean raises
            # ZeroDivisionError (not NumPy's NaN with a RuntimeWarning).
            reduced = "all axes" if self.axis is None else f"axis={_shown_axis(self.axis)}"
            raise ZeroDivisionError(
                f"mean must average at least one element, got none over {reduced} of x with "
                f"shape {tuple(x.shape)}: float division by zero; skip empty inputs, or "
                "reduce over axes of nonzero length")
        self.multiplier = 1.0 / count
        # compat: summed in NumPy 1's order past 8,192 entries (NOTE [NumPy 1 sum order]).
        return utils.force_array(
            mean_in_numpy1_order(x, self.axis, keepdims=self.keepdims)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0] * self.multiplier
        # A mean over all axes has a 0-d gradient, which broadcasts as it is: no Reshape node
        # for hooks to see, as in Chainer.
        if not self.keepdims and self.axis is not None:
            gy = reshape(gy, keepdims_shape(self._in_shape, self.axis))
        return broadcast_to(gy, self._in_shape),


def _shown_axis(axis: tuple[int, ...]) -> int | tuple[int, ...]:
    return axis[0] if len(axis) == 1 else axis


def _is_int_tuple(axis: Any) -> bool:
    return isinstance(axis, tuple) and all(is_int(a) for a in axis)


def _mean(x: Any, axis: Any, keepdims: bool = False) -> variable.Variable:
    y, = Mean(axis, keepdims).apply((x,))
    return y


def average(x: Any, axis: Any = None, weights: Any = None,
            keepdims: bool = False) -> variable.Variable:
    """Weighted average of the elements of ``x`` over ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: None (all axes), an int, or a tuple of ints (a tuple only without weights).
        weights: None (every weight one), or a Variable or array of weights: of ``x``'s shape
            when ``axis`` is None, of shape ``(x.shape[axis],)`` when ``axis`` is an int.
        keepdims: Keep the reduced axes with length one.

    Returns:
        The output Variable.

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ZeroDivisionError: If ``weights`` is None and the reduction covers no element (an
            empty ``x``, or a zero-length axis in ``axis``). With ``weights``, an empty
            reduction gives NaN, as in Chainer.
        ValueError: If ``axis`` repeats an axis, or is a tuple of several axes while
            ``weights`` is given.
    """
    if weights is None:
        return _mean(x, axis, keepdims)
    if not backend.is_array(x):
        x = variable.as_variable(x)
    # compat: a raw array ``x`` stays a constant, so ``x * weights`` casts it to the weights'
    # dtype, as Chainer's operators do (a Variable ``x`` of another dtype raises InvalidType).
    # A tuple's repeats are found after negative axes are counted from 0, as Chainer finds
    # them, and with its message.
    axes = normalize_axis(axis) if not _is_int_tuple(axis) else axis
    if axes is not None:
        axes = tuple(sorted(a + x.ndim if a < 0 else a for a in axes))
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axis': {axis!r}")
        if len(axes) > 1:
            # compat: Chainer's wording.
            raise ValueError("tuple axis is not supported when weights is given")
    divider = _sum.sum(weights)
    if axes is not None:
        weight_shape = tuple(size if i in axes else 1 for i, size in enumerate(x.shape))
        weights = broadcast_to(reshape(weights, weight_shape), x.shape)
    total = _sum.sum(x * weights, axes, keepdims)
    return total / broadcast_to(divider, total.shape)
