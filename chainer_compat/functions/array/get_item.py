"""``get_item``: differentiable indexing, basic and advanced (``x[slices]``).

Layer 5: imports backend, configuration, utils, variable and function_node.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _normalize_slices(slices: Any) -> tuple[Any, ...]:
    """Returns ``slices`` as the tuple NumPy indexes with, Variables replaced by their arrays."""
    if isinstance(slices, variable.Variable):
        slices = slices.array
    if isinstance(slices, list):
        # compat: a list of ints is one integer index array; any other list is a tuple of
        # indices, as older NumPy read it.
        if all(isinstance(s, int) for s in slices):
            slices = (slices,)
        slices = tuple(slices)
    elif not isinstance(slices, tuple):
        slices = (slices,)
    return tuple(s.array if isinstance(s, variable.Variable) else s for s in slices)


def _indexed_ndim(slices: tuple[Any, ...]) -> int:
    """Number of input axes that ``slices`` consumes (None and Ellipsis consume none)."""
    count = 0
    for s in slices:
        # A bool is a 0-d mask, as NumPy reads it: it adds an axis and consumes none.
        if s is None or s is Ellipsis or isinstance(s, bool):
            continue
        dtype = getattr(s, "dtype", None)
        count += s.ndim if dtype is not None and dtype.kind == "b" else 1
    return count


def _integer_indices(slices: tuple[Any, ...]) -> tuple[Any, ...]:
    """Replaces boolean masks by the integer index arrays they select (for scatter-add)."""
    result: list[Any] = []
    for s in slices:
        dtype = getattr(s, "dtype", None)
        if dtype is not None and dtype.kind == "b" and getattr(s, "ndim", 0) > 0:
            result.extend(s.nonzero())
        else:
            result.append(s)
    return tuple(result)


def _add_at_slices(target: Any, slices: tuple[Any, ...], values: Any) -> None:
    """``target[slices] += values`` counting repeated indices; CuPy gets masks as indices."""
    if type(target) is not numpy.ndarray:
        slices = _integer_indices(slices)
    utils.add_at(target, slices, values)


def _check_ellipses(slices: tuple[Any, ...]) -> None:
    if sum(1 for s in slices if s is Ellipsis) > 1:
        raise ValueError("Only one Ellipsis is allowed")


class GetItem(FunctionNode):
    """``x[slices]``; backward scatters the gradient into zeros.

    Raises:
        ValueError: In debug mode, if ``slices`` holds more than one Ellipsis.
    """

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize_slices(slices)
        self._consumed = _indexed_ndim(self.slices)
        if config.debug:
            _check_ellipses(self.slices)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        ndim = type_check.eval(in_types[0].ndim)
        if ndim < self._consumed:
            # compat: Chainer leaves indexing to NumPy, whose IndexError (and wording) its
            # users see.
            raise IndexError(
                f"slices must index at most x.ndim = {ndim} axes, got {self._consumed}: too "
                f"many indices for array: array is {ndim}-dimensional, but {self._consumed} "
                "were indexed; drop the extra indices, or add axes with None")

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # Indexing runs on every Variable.__getitem__: check the common case cheaply.
        if len(in_data) == 1 and in_data[0].ndim >= self._consumed:
            return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return utils.force_array(x[self.slices]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return GetItemGrad(self.slices, self._in_shape).apply(grad_outputs)


class GetItemGrad(FunctionNode):
    """The gradient of GetItem: adds the gradient into zeros at ``slices``."""

    def __init__(self, slices: Any, in_shape: tuple[int, ...]) -> None:
        self.slices = slices
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        # add.at sums repeated indices where plain assignment would keep only one.
        _add_at_slices(gx, self.slices, gy)
        return gx,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return GetItem(self.slices).apply(grad_outputs)


def get_item(x: Any, slices: Any) -> variable.Variable:
    """Returns ``x[slices]``, differentiably.

    Args:
        x: Input Variable or array.
        slices: An int, slice, Ellipsis, None, integer or boolean array (or list, or
            Variable), or a tuple of them, as NumPy indexing takes.

    Returns:
        A Variable holding the selected elements (a view of ``x``'s array for basic
        indexing, as in NumPy).

    Raises:
        IndexError: If ``slices`` indexes more axes than ``x`` has, or an index is out of
            bounds (as NumPy raises it).
        TypeError: If ``x`` is None.
    """
    if x is None:
        # compat: Chainer indexes None and raises TypeError; apply() would take it for an
        # optional input.
        raise TypeError("x of get_item must be a Variable or an array, got None: 'NoneType' "
                        "object is not subscriptable")
    y, = GetItem(slices).apply((x,))
    return y
