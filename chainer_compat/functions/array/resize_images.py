"""``resize_images``: bilinear or nearest-neighbour resizing of ``(n, c, h, w)`` images.

Layer 5: imports backend, variable, function_node and type_check. Both modes are separable
linear maps, applied as one interpolation matrix per spatial axis; the gradient is the same
map transposed, so every order of gradient is available.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _interpolation_matrix(out_size: int, in_size: int, mode: str, align_corners: bool
                          ) -> numpy.ndarray:
    """The ``(out_size, in_size)`` matrix whose row ``i`` holds the weights that output
    position ``i`` takes from the input positions."""
    positions = numpy.arange(out_size, dtype=numpy.float64)
    if mode == "nearest":
        source = numpy.minimum(numpy.floor(positions * (in_size / out_size)), in_size - 1)
    elif align_corners:
        # The first and last output positions sit on the first and last input positions.
        source = numpy.linspace(0, in_size - 1, num=out_size)
    else:
        # Pixel centres line up (as in OpenCV); positions before the first centre clamp.
        source = numpy.maximum((positions + 0.5) * (in_size / out_size) - 0.5, 0)
    fraction, lower = numpy.modf(source)
    lower = lower.astype(numpy.intp)
    upper = numpy.minimum(lower + 1, in_size - 1)
    matrix = numpy.zeros((out_size, in_size))
    rows = numpy.arange(out_size)
    numpy.add.at(matrix, (rows, lower), 1 - fraction)
    numpy.add.at(matrix, (rows, upper), fraction)
    return matrix


class _SeparableMap(FunctionNode):
    """``y[n, c] = rows @ x[n, c] @ columns.T``; its gradient is the transposed map."""

    def __init__(self, rows: numpy.ndarray, columns: numpy.ndarray, input_name: str) -> None:
        self.rows = rows
        self.columns = columns
        self._input_name = input_name

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, (self._input_name,))
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        rows = xp.asarray(self.rows, dtype=x.dtype)
        columns = xp.asarray(self.columns, dtype=x.dtype)
        return xp.matmul(xp.matmul(rows, x), columns.T).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _SeparableMap(self.rows.T, self.columns.T, "gy").apply(grad_outputs)


class ResizeImages(_SeparableMap):
    """Image resizing. Use :func:`resize_images`.

    Args:
        output_shape: ``(out_h, out_w)``.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: For bilinear mode, whether the corner pixels of input and output
            coincide.

    Raises:
        ValueError: On another mode.
    """

    def __init__(self, output_shape: Any, mode: str = "bilinear", align_corners: bool = True
                 ) -> None:
        if mode not in ("bilinear", "nearest"):
            raise ValueError(f"mode must be 'bilinear' or 'nearest', got {mode!r}")
        self.out_H, self.out_W = int(output_shape[0]), int(output_shape[1])
        self.mode = mode
        self.align_corners = align_corners
        super().__init__(numpy.zeros((0, 0)), numpy.zeros((0, 0)), "x")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.rows = _interpolation_matrix(self.out_H, x.shape[2], self.mode,
                                          self.align_corners)
        self.columns = _interpolation_matrix(self.out_W, x.shape[3], self.mode,
                                             self.align_corners)
        return super().forward(inputs)


def resize_images(x: Any, output_shape: Any, *, mode: str = "bilinear",
                  align_corners: bool = True) -> variable.Variable:
    """Resizes the images ``x`` to ``output_shape`` by interpolation.

    Args:
        x: Float input of shape ``(n, c, h, w)``.
        output_shape: ``(out_h, out_w)`` (height first, unlike OpenCV).
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: In bilinear mode, map the corner pixels of the input onto those of the
            output; with False, align pixel centres as OpenCV does.

    Returns:
        A Variable of shape ``(n, c, out_h, out_w)`` and ``x``'s dtype.

    Compat:
        Chainer accepts float32 only; any float dtype works here.

    Raises:
        ValueError: On an unknown mode (Chainer asserts).
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a 4-d float array.
    """
    return ResizeImages(output_shape, mode, align_corners).apply((x,))[0]
