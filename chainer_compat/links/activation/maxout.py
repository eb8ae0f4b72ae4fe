"""``Maxout``: a Linear layer whose outputs are grouped in ``pool_size``s and reduced by max.

Layer 8: imports backend, functions, initializer, link and links.connection.linear.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat import backend, link, variable
from chainer_compat.functions.activation.maxout import maxout
from chainer_compat.initializer import Initializer
from chainer_compat.links.connection.linear import Linear

__all__ = ["Maxout"]


def _grouped_filler(fill: Callable[[Any], Any], grouped_shape: tuple[int, ...]
                    ) -> Callable[[Any], None]:
    """Wraps ``fill`` so that it sees the array in ``grouped_shape`` instead of its own."""
    def fill_grouped(array: Any) -> None:
        grouped = array.reshape(grouped_shape)
        fill(grouped)
        # A no-op when reshape gave a view; copies back when it had to copy.
        array[...] = grouped.reshape(array.shape)
    return fill_grouped


def _is_passed_through(value: Any) -> bool:
    # None, scalars and Initializer objects go to Linear unchanged, as in Chainer.
    return value is None or numpy.isscalar(value) or isinstance(value, Initializer)


class Maxout(link.Chain):
    """A maxout layer: ``out_size`` units, each the maximum of ``pool_size`` linear units.

    Args:
        in_size: Number of input features, or None to infer it on the first call.
        out_size: Number of output units.
        pool_size: Number of linear units pooled into each output.
        initialW: Initializer of the weight. An array has shape
            ``(out_size, pool_size, in_size)``; a plain callable is handed the weight in that
            shape; an ``Initializer``, a scalar or None (``LeCunNormal()``) fill the
            ``(out_size * pool_size, in_size)`` weight of the Linear child.
        initial_bias: Initializer of the bias, likewise in ``(out_size, pool_size)`` shape for
            arrays and plain callables; None means no bias. Zeros by default.

    Attributes:
        linear: The :class:`Linear` child, with ``out_size * pool_size`` outputs; output unit
            ``i`` pools its outputs ``i * pool_size`` to ``(i + 1) * pool_size - 1``.
        out_size: The number of output units.
        pool_size: The pool size.

    Raises:
        ValueError: If an array ``initialW`` is not 3-D, or an array ``initial_bias`` is not
            2-D.
    """

    def __init__(self, in_size: int | None, out_size: int, pool_size: int,
                 initialW: Any = None, initial_bias: Any = 0) -> None:
        super().__init__()
        linear_out_size = out_size * pool_size
        # -1 lets an array or callable initializer of a lazily sized layer take the input size.
        known_in_size = -1 if in_size is None else in_size

        if _is_passed_through(initialW):
            pass
        elif backend.is_array(initialW):
            if initialW.ndim != 3:
                raise ValueError(
                    "initialW must be a 3-D array of shape (out_size, pool_size, in_size), got "
                    f"{initialW.ndim} dimensions (shape {initialW.shape})")
            initialW = initialW.reshape(linear_out_size, known_in_size)
        elif callable(initialW):
            initialW = _grouped_filler(initialW, (out_size, pool_size, known_in_size))

        if _is_passed_through(initial_bias):
            pass
        elif backend.is_array(initial_bias):
            if initial_bias.ndim != 2:
                raise ValueError(
                    "initial_bias must be a 2-D array of shape (out_size, pool_size), got "
                    f"{initial_bias.ndim} dimensions (shape {initial_bias.shape})")
            initial_bias = initial_bias.reshape(linear_out_size)
        elif callable(initial_bias):
            initial_bias = _grouped_filler(initial_bias, (out_size, pool_size))

        with self.init_scope():
            self.linear = Linear(in_size, linear_out_size, nobias=initial_bias is None,
                                 initialW=initialW, initial_bias=initial_bias)
        self.out_size = out_size
        self.pool_size = pool_size

    def forward(self, x: Any) -> variable.Variable:
        """Returns the ``(batch, out_size)`` maxout of ``x``."""
        return maxout(self.linear(x), self.pool_size)
