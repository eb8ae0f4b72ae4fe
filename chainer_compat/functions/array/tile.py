"""``tile``: repeats a whole array along each axis, like ``numpy.tile``.

Layer 5: imports backend, variable, function_node and the ``reshape``/``sum`` functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array._common import is_int
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.utils import type_check


class Tile(FunctionNode):
    """Tiles its input ``reps`` times; backward sums the copies.

    Raises:
        TypeError: If ``reps`` is not an int or a tuple of ints.
        ValueError: If a repetition count is negative.
    """

    def __init__(self, reps: Any) -> None:
        if is_int(reps):
            self.reps: tuple[int, ...] = (int(reps),)
        elif isinstance(reps, tuple) and all(is_int(r) for r in reps):
            self.reps = tuple(int(r) for r in reps)
        else:
            # compat: Chainer's two lines first, which code may match.
            raise TypeError(f"reps must be int or tuple of ints.\nActual: {type(reps)}\n"
                            f"Got {reps!r}")
        if any(r < 0 for r in self.reps):
            # compat: Chainer's sentence first, which code may match.
            raise ValueError(f"All elements in reps must be zero or larger\nGot {self.reps}")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return backend.get_array_module(x).tile(x, self.reps),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.math.sum import sum as _sum  # math imports array

        gy, = grad_outputs
        ndim = max(len(self._in_shape), len(self.reps))
        shape = (1,) * (ndim - len(self._in_shape)) + tuple(self._in_shape)
        reps = (1,) * (ndim - len(self.reps)) + self.reps
        if ndim == 0:
            return gy,
        # Split every output axis into (repetition, original) and sum the repetitions.
        split_shape: list[int] = []
        for rep, size in zip(reps, shape):
            split_shape.extend((rep, size))
        summed = _sum(reshape(gy, tuple(split_shape)), axis=tuple(range(0, 2 * ndim, 2)))
        return reshape(summed, self._in_shape),


def tile(x: Any, reps: Any) -> variable.Variable:
    """Builds an array by repeating ``x`` ``reps`` times along each axis.

    Args:
        x: Input Variable or array.
        reps: An int or a tuple of ints: how often ``x`` is repeated per axis (aligned on
            the right, as in ``numpy.tile``).

    Returns:
        The tiled Variable.

    Raises:
        TypeError: If ``reps`` is not an int or a tuple of ints.
        ValueError: If a repetition count is negative.
    """
    y, = Tile(reps).apply((x,))
    return y
