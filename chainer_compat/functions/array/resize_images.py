"""``resize_images``: bilinear or nearest-neighbour resizing of ``(n, c, h, w)`` images.

Layer 5: imports backend, variable, function_node and type_check. Each output pixel is a
weighted sum of the four input pixels around its source position (nearest mode gives the first
all the weight), as Chainer computes it; the gradient is the transposed interpolation. The two
are each other's adjoint, so every order of gradient exists.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import AssertValueError

# Output rows gathered at once on the CPU: the four neighbours of each output pixel are copied
# for a block of rows at a time, about this many values, so large images stay in cache.
_BLOCK_VALUES = 2 ** 17


def _sources(out_size: int, in_size: int, mode: str, align_corners: bool
             ) -> tuple[numpy.ndarray, numpy.ndarray]:
    """For each output position along one axis: the input position before its source point
    and the weight of the one after it, computed in float64 as Chainer computes them."""
    positions = numpy.arange(out_size, dtype=numpy.float64)
    if mode == "nearest":
        lower = numpy.minimum(numpy.floor(positions * (in_size / out_size)), in_size - 1)
        return lower.astype(numpy.intp), numpy.zeros(out_size)
    if align_corners:
        # The first and last output positions sit on the first and last input positions.
        source = numpy.linspace(0, in_size - 1, num=out_size)
    else:
        # Pixel centres line up (as in OpenCV); positions before the first centre clamp.
        source = numpy.maximum((positions + 0.5) * (in_size / out_size) - 0.5, 0)
    fraction, lower = numpy.modf(source)
    return lower.astype(numpy.intp), fraction


class _Geometry:
    """Where each output pixel reads: its four input neighbours and their weights.

    Args:
        in_size: ``(h, w)`` of the input.
        out_size: ``(out_h, out_w)`` of the output.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: For bilinear mode, whether the corner pixels coincide.
    """

    def __init__(self, in_size: tuple[int, int], out_size: tuple[int, int], mode: str,
                 align_corners: bool) -> None:
        self.in_h, self.in_w = in_size
        self.out_h, self.out_w = out_size
        self.rows, self.row_fraction = _sources(self.out_h, self.in_h, mode, align_corners)
        self.columns, self.column_fraction = _sources(self.out_w, self.in_w, mode,
                                                      align_corners)

    def neighbours(self, xp: Any) -> tuple[Any, Any]:
        """The input rows ``(2, out_h, 1)`` and columns ``(2, 1, out_w)`` of the neighbours."""
        rows = numpy.stack([self.rows, numpy.minimum(self.rows + 1, self.in_h - 1)])
        columns = numpy.stack([self.columns, numpy.minimum(self.columns + 1, self.in_w - 1)])
        return xp.asarray(rows[:, :, None]), xp.asarray(columns[:, None, :])

    def weights(self, xp: Any, dtype: Any) -> Any:
        """The ``(2, 2, out_h, out_w)`` weights of the neighbours ``[row step, column step]``.

        compat: formed as Chainer's CPU code forms them, in ``dtype``: the upper column takes
        ``uw``, the lower ``1 - uw``; then each row pair splits by ``vw``, the lower row keeping
        the difference.
        """
        shape = (self.out_h, self.out_w)
        column_weight = numpy.broadcast_to(self.column_fraction.astype(dtype)[None, :], shape)
        row_weight = self.row_fraction.astype(dtype)[:, None]
        weights = numpy.empty((2, 2) + shape, dtype)
        weights[0, 1] = column_weight
        numpy.subtract(1, weights[0, 1], out=weights[0, 0])
        numpy.multiply(weights[0], row_weight, out=weights[1])
        weights[0] -= weights[1]
        return xp.asarray(weights)


def _interpolate(x: Any, geometry: _Geometry) -> Any:
    """Each output pixel as the weighted sum of its four input neighbours."""
    xp = backend.get_array_module(x)
    batch, channels = x.shape[:2]
    rows, columns = geometry.neighbours(xp)
    weights = geometry.weights(xp, x.dtype)
    if xp is not numpy:
        # compat: the sum as Chainer's CUDA kernel groups it.
        corner = {(i, j): x[:, :, rows[i], columns[j]] * weights[i, j]
                  for i in (0, 1) for j in (0, 1)}
        return (corner[0, 0] + corner[0, 1]) + (corner[1, 0] + corner[1, 1])
    out_h, out_w = geometry.out_h, geometry.out_w
    y = numpy.empty((batch * channels, out_h * out_w), x.dtype)
    per_row = max(batch * channels * 4 * out_w, 1)
    block = max(1, min(out_h, _BLOCK_VALUES // per_row))
    for start in range(0, out_h, block):
        stop = min(start + block, out_h)
        # (batch, channels, 2, 2, block, out_w): the neighbours of a block of output rows.
        panel = x[:, :, rows[:, None, start:stop], columns[None, :]]
        panel = panel.reshape(batch * channels, 4, (stop - start) * out_w)
        # compat: summed by einsum over the four neighbours, as Chainer's CPU code sums them.
        numpy.einsum("ijk,jk->ik", panel, weights[:, :, start:stop].reshape(4, -1),
                     out=y[:, start * out_w:stop * out_w])
    return y.reshape(batch, channels, out_h, out_w)


def _matrix(size: int, lower: numpy.ndarray, fraction: numpy.ndarray) -> numpy.ndarray:
    """The ``(out, in)`` matrix of one axis: row ``i`` holds output position ``i``'s weights."""
    matrix = numpy.zeros((len(lower), size))
    positions = numpy.arange(len(lower))
    numpy.add.at(matrix, (positions, lower), 1 - fraction)
    numpy.add.at(matrix, (positions, numpy.minimum(lower + 1, size - 1)), fraction)
    return matrix


def _scatter(gy: Any, geometry: _Geometry) -> Any:
    """The gradient of :func:`_interpolate`: the transposed interpolation, one matrix product
    per axis.

    Chainer scatters each weighted output gradient with bincount instead, which is several
    times slower on large images; the sums differ from it in the last bits, and a NaN in ``gy``
    reaches its whole image here.
    """
    xp = backend.get_array_module(gy)
    rows = xp.asarray(_matrix(geometry.in_h, geometry.rows, geometry.row_fraction), gy.dtype)
    columns = xp.asarray(_matrix(geometry.in_w, geometry.columns, geometry.column_fraction),
                         gy.dtype)
    return xp.matmul(xp.matmul(rows.T, gy), columns).astype(gy.dtype, copy=False)


def _geometry(node: Any, image_shape: tuple[int, ...]) -> _Geometry:
    """The geometry of a resize node (either direction) for images of ``image_shape``."""
    return _Geometry((image_shape[2], image_shape[3]), (node.out_H, node.out_W), node.mode,
                     node.align_corners)


def _check_images(in_types: Any, name: str) -> None:
    type_check._argname(in_types, (name,))
    image_type = in_types[0]
    type_check.expect(
        image_type.dtype.kind == "f",
        image_type.ndim == 4,
    )


class ResizeImages(FunctionNode):
    """Image resizing. Use :func:`resize_images`.

    Args:
        output_shape: ``(out_h, out_w)``.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: For bilinear mode, whether the corner pixels of input and output
            coincide.

    Raises:
        ValueError: On another mode (also an AssertionError, as Chainer asserts it).
    """

    def __init__(self, output_shape: Any, mode: str = "bilinear", align_corners: bool = True
                 ) -> None:
        if mode not in ("bilinear", "nearest"):
            # compat: Chainer asserts this (NOTE [bare asserts] in utils/_assertions.py).
            raise AssertValueError(f"mode must be 'bilinear' or 'nearest', got {mode!r}")
        self.out_H, self.out_W = int(output_shape[0]), int(output_shape[1])
        self.mode = mode
        self.align_corners = align_corners

    def check_type_forward(self, in_types: Any) -> None:
        _check_images(in_types, "x")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._input_shape = x.shape
        return _interpolate(x, _geometry(self, x.shape)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return ResizeImagesGrad(self._input_shape, (self.out_H, self.out_W), self.mode,
                                self.align_corners).apply(grad_outputs)


class ResizeImagesGrad(FunctionNode):
    """The gradient of :class:`ResizeImages`, whose own gradient is ResizeImages again.

    Args:
        input_shape: The shape of the resized images.
        output_shape: ``(out_h, out_w)``.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: As for :class:`ResizeImages`.
    """

    def __init__(self, input_shape: tuple[int, ...], output_shape: Any, mode: str,
                 align_corners: bool) -> None:
        self.input_shape = tuple(input_shape)
        self.out_H, self.out_W = int(output_shape[0]), int(output_shape[1])
        self.mode = mode
        self.align_corners = align_corners

    def check_type_forward(self, in_types: Any) -> None:
        _check_images(in_types, "gy")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _scatter(gy, _geometry(self, self.input_shape)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return ResizeImages((self.out_H, self.out_W), self.mode,
                            self.align_corners).apply(grad_outputs)


def resize_images(x: Any, output_shape: Any, *, mode: str = "bilinear",
                  align_corners: bool = True) -> variable.Variable:
    """Resizes the images ``x`` to ``output_shape`` by interpolation.

    Each output pixel reads only the input pixels around its source position, so a NaN or an
    infinity stays local, as in Chainer.

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
