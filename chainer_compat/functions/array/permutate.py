"""``permutate``: reorders an array along an axis by a permutation of indices.

Layer 5: imports backend, configuration, variable, function_node and utils.type_check.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _check_indices(indices: Any) -> None:
    """Raises ValueError unless ``indices`` is a permutation of ``range(len(indices))``."""
    host = numpy.asarray(backend.CpuDevice().send(indices))
    for index in host:
        if not 0 <= index < len(host):
            raise ValueError(f"Out of bounds index: {index}")
    ordered = numpy.sort(host)
    for before, after in itertools.pairwise(ordered):
        if before == after:
            raise ValueError(f"indices contains duplicate value: {before}")


def _inverse(indices: Any) -> Any:
    xp = backend.get_array_module(indices)
    inverse = xp.empty_like(indices)
    inverse[indices] = xp.arange(len(indices), dtype=indices.dtype)
    return inverse


class Permutate(FunctionNode):
    """Takes ``x[indices]`` along ``axis`` (``x[inverse(indices)]`` when ``inv``).

    Raises:
        ValueError: In debug mode, if ``indices`` is not a permutation.
    """

    def __init__(self, indices: Any, axis: int = 0, inv: bool = False) -> None:
        self.indices = indices
        self.axis = axis
        self.inv = inv
        if config.debug:
            _check_indices(indices)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        if self.axis < 0:
            type_check.expect(x_type.ndim >= -self.axis)
        else:
            type_check.expect(x_type.ndim > self.axis)
        indices = type_check._make_variable_from_array(self.indices, "indices")
        type_check.expect(indices.dtype.kind == "i", indices.ndim == 1)
        type_check.expect(x_type.shape[self.axis] == indices.shape[0])

    def _permutate(self, x: Any, inv: bool) -> Any:
        indices = _inverse(self.indices) if inv else self.indices
        # compat: Chainer's fancy index, whose result NumPy lays out with the indexed axis
        # outermost (a later sum over it, such as of an n-step RNN's last states, adds in that
        # order); xp.take would lay it out in C order.
        axis = self.axis % x.ndim
        return x[(slice(None),) * axis + (indices,)]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._permutate(inputs[0], self.inv),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return Permutate(self.indices, self.axis, not self.inv).apply(grad_outputs)


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> variable.Variable:
    """Permutes ``x`` along ``axis``: ``y[i] = x[indices[i]]`` (``y[indices[i]] = x[i]``
    when ``inv`` is True).

    Args:
        x: Input Variable or array.
        indices: Integer Variable or array, a permutation of ``range(x.shape[axis])``.
        axis: The axis to permute.
        inv: Use the inverse permutation.

    Returns:
        The permuted Variable.

    Raises:
        ValueError: If ``indices`` is not a 1-D integer array; in debug mode, also if it
            is not a permutation.
        chainer_compat.utils.type_check.InvalidType: If the length of ``indices`` is not
            ``x.shape[axis]``, or ``axis`` is out of range.
    """
    if isinstance(indices, variable.Variable):
        indices = indices.array
    # compat: Chainer checks the indices' kind here, before type checking, with a ValueError.
    if indices.dtype.kind != "i" or indices.ndim != 1:
        # compat: Chainer's sentence first, which code may match.
        raise ValueError(
            "indices should be a one-dimensional int array\n"
            f"indices of permutate got dtype {indices.dtype} and shape {indices.shape}; "
            "convert them with astype(numpy.int32)")
    y, = Permutate(indices, axis, inv).apply((x,))
    return y
