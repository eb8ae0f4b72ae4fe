"""``Bilinear``: the bilinear layer ``y = e1^T W e2 + V1^T e1 + V2^T e2 + b``.

Layer 8: imports backend, functions, initializers, link and variable.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, initializers, link, variable
from chainer_compat.functions.connection.bilinear import bilinear
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["Bilinear"]


def _check_array_shape(name: str, value: Any, shape: tuple[int, ...]) -> None:
    """Raises if ``value`` is an array whose shape is not ``shape``; other values pass."""
    is_array = isinstance(value, numpy.ndarray) or backend.is_cupy_array(value)
    if is_array and value.shape != shape:
        # compat: a bare assert in Chainer (NOTE [bare asserts]).
        raise AssertValueError(
            f"{name} must have shape {shape}, got {value.shape}")


class Bilinear(link.Link):
    """A bilinear layer over two inputs ``e1`` (batch, left_size) and ``e2`` (batch,
    right_size).

    Args:
        left_size: Size of ``e1``'s features.
        right_size: Size of ``e2``'s features.
        out_size: Number of outputs.
        nobias: If True, only the bilinear term is used and there are no ``V1``, ``V2``, ``b``.
        initialW: Initializer of ``W`` (shape ``(left_size, right_size, out_size)``); None for
            ``LeCunNormal()``.
        initial_bias: A tuple ``(initialV1, initialV2, initialb)`` of initializers of ``V1``
            (``(left_size, out_size)``), ``V2`` (``(right_size, out_size)``) and ``b``
            (``(out_size,)``), or None for ``LeCunNormal()``, ``LeCunNormal()`` and zeros.

    Attributes:
        W, V1, V2, b: The parameters (``V1``, ``V2`` and ``b`` only without ``nobias``).
        in_sizes: ``(left_size, right_size)``.
        nobias: The flag given at construction.

    Raises:
        ValueError: If an array initializer has the wrong shape, or ``initial_bias`` is neither
            None nor a 3-tuple.

    Compat:
        Chainer reports a wrongly shaped array initializer with a bare ``AssertionError``; the
        error raised here is both a ``ValueError`` and an ``AssertionError``, and names the shape.
    """

    W: variable.Parameter
    V1: variable.Parameter
    V2: variable.Parameter
    b: variable.Parameter

    def __init__(self, left_size: int, right_size: int, out_size: int, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        self.in_sizes = (left_size, right_size)
        self.nobias = nobias

        W_shape = (left_size, right_size, out_size)
        _check_array_shape("initialW", initialW, W_shape)
        if not nobias:
            V1_shape = (left_size, out_size)
            V2_shape = (right_size, out_size)
            b_shape = (out_size,)
            if initial_bias is None:
                initialV1 = initializers._get_initializer(None)
                initialV2 = initializers._get_initializer(None)
                initialb: Any = 0
            elif isinstance(initial_bias, tuple) and len(initial_bias) == 3:
                initialV1, initialV2, initialb = initial_bias
                _check_array_shape("initial_bias[0] (V1)", initialV1, V1_shape)
                _check_array_shape("initial_bias[1] (V2)", initialV2, V2_shape)
                _check_array_shape("initial_bias[2] (b)", initialb, b_shape)
                initialV1 = initializers._get_initializer(initialV1)
                initialV2 = initializers._get_initializer(initialV2)
                initialb = initializers._get_initializer(initialb)
            else:
                raise ValueError(
                    "initial_bias must be a tuple (initialV1, initialV2, initialb) or None, "
                    f"got {initial_bias!r}")

        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW), W_shape)
            if not nobias:
                self.V1 = variable.Parameter(initialV1, V1_shape)
                self.V2 = variable.Parameter(initialV2, V2_shape)
                self.b = variable.Parameter(initialb, b_shape)

    def forward(self, e1: Any, e2: Any) -> variable.Variable:
        """Returns the bilinear output of shape ``(batch, out_size)``."""
        if self.nobias:
            return bilinear(e1, e2, self.W)
        return bilinear(e1, e2, self.W, self.V1, self.V2, self.b)

    def zero_grads(self) -> None:
        """Same as :meth:`zerograds`."""
        # compat: Chainer's Bilinear keeps this older spelling.
        self.zerograds()
