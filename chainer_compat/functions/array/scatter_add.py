"""``scatter_add``: adds values into a copy of an array at given indices.

Layer 5: imports configuration, variable, function_node and ``get_item``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.get_item import (
    _add_at_slices,
    _check_ellipses,
    _indexed_ndim,
    _normalize_slices,
    get_item,
)
from chainer_compat.utils import type_check


class ScatterAdd(FunctionNode):
    """``a.copy()`` with ``b`` added at ``slices`` (repeated indices accumulate).

    Raises:
        ValueError: In debug mode, if ``slices`` holds more than one Ellipsis.
    """

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize_slices(slices)
        if config.debug:
            _check_ellipses(self.slices)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        consumed = type_check.make_variable(_indexed_ndim(self.slices), "len(slices)")
        type_check.expect(in_types[0].ndim >= consumed)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        y = a.copy()
        if y[self.slices].shape != b.shape:
            # compat: Chainer's wording.
            raise ValueError(
                "Chainer does not support automatic broadcasting of variables.\n"
                f"b must have the shape of a[slices], {y[self.slices].shape}, got {b.shape}")
        _add_at_slices(y, self.slices, b)
        return y,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        grads: list[Any] = []
        for index in indexes:
            grads.append(gy if index == 0 else get_item(gy, self.slices))
        return tuple(grads)


def scatter_add(a: Any, slices: Any, b: Any) -> variable.Variable:
    """Returns a copy of ``a`` with ``b`` added at ``slices`` (``numpy.add.at`` semantics).

    ``a`` itself is left unchanged; indices that repeat receive every addition.

    Args:
        a: Variable or array.
        slices: An index as ``get_item`` takes.
        b: Variable or array of the shape of ``a[slices]`` (no broadcasting).

    Returns:
        The resulting Variable.

    Raises:
        ValueError: If ``b``'s shape differs from ``a[slices]``'s.
    """
    y, = ScatterAdd(slices).apply((a, b))
    return y
