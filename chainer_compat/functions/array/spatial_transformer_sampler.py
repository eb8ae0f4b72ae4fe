"""``spatial_transformer_sampler``: bilinear sampling of an image at grid coordinates, with
zero padding outside it. Layer 5: imports backend, utils, variable, function_node, type_check
and ``functions`` (sum, stack) for the differentiable gradient (NOTE [bilinear kinds]).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_with_values,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.functions.array.stack import stack
from chainer_compat.functions.math.sum import sum as _sum
from chainer_compat.utils import add_at, argument, type_check

# NOTE [bilinear kinds]
# A sample at fractional offsets (fu, fv) from its upper-left pixel weighs its four pixels
# (00, 01, 10, 11) = ((1-fu)(1-fv), fu(1-fv), (1-fu)fv, fu fv). Differentiating the weights by
# fu or fv gives other fixed-pattern weightings of the same four pixels ("du", "dv", then
# "duv"), each linear in the image. So the sampler and all its derivatives are gathers and
# scatters of one of four kinds of weights, and the gradient of a gather or scatter of kind k
# with respect to the grid is a gather of kind dk/du or dk/dv: any order of differentiation
# is built from the two nodes below. The coordinates' gradient is masked where a coordinate
# lies outside the padded image, as in Chainer.

_DERIVATIVE = {("value", 0): "du", ("value", 1): "dv", ("du", 1): "duv", ("dv", 0): "duv"}


def _padded_positions(flat: Any, height: int, width: int) -> tuple[Any, ...]:
    """``(u, v, u_clipped, v_clipped, u0, v0)`` of grid points ``flat`` ``(n, 2, points)``.

    ``u`` and ``v`` are the coordinates in the zero-padded image: [-1, 1] maps to [1, size],
    the padding is 0 and size + 1. The clipped ones stay inside the padded image, and ``u0``,
    ``v0`` are the pixel at or before them.
    """
    xp = backend.get_array_module(flat)
    u = (flat[:, 0] + 1) * (width - 1) / 2 + 1
    v = (flat[:, 1] + 1) * (height - 1) / 2 + 1
    u_clipped = u.clip(0, width + 1)
    v_clipped = v.clip(0, height + 1)
    u0 = xp.floor(u_clipped).astype(numpy.int64).clip(0, width)
    v0 = xp.floor(v_clipped).astype(numpy.int64).clip(0, height)
    return u, v, u_clipped, v_clipped, u0, v0


class _Geometry:
    """Pixel indices (into the zero-padded image, flattened per sample) and offsets of each
    grid point, with the factor from offset to grid coordinate along each axis."""

    def __init__(self, grid: Any, height: int, width: int) -> None:
        xp = backend.get_array_module(grid)
        batch = grid.shape[0]
        u, v, u_clipped, v_clipped, u0, v0 = _padded_positions(
            grid.reshape(batch, 2, -1), height, width)
        self.fu = (u_clipped - u0).astype(grid.dtype, copy=False)
        self.fv = (v_clipped - v0).astype(grid.dtype, copy=False)
        padded_width = width + 2
        base = xp.arange(batch)[:, None] * ((height + 2) * padded_width)
        top = base + v0 * padded_width
        bottom = top + padded_width
        self.corners = (top + u0, top + u0 + 1, bottom + u0, bottom + u0 + 1)
        inside_u = (u > 0) & (u < width + 1)
        inside_v = (v > 0) & (v < height + 1)
        self.scale = (
            (inside_u * ((width - 1) / 2)).astype(grid.dtype, copy=False),
            (inside_v * ((height - 1) / 2)).astype(grid.dtype, copy=False),
        )

    def weights(self, kind: str) -> tuple[Any, Any, Any, Any]:
        """The weights of the four corners for one kind (NOTE [bilinear kinds])."""
        fu, fv = self.fu, self.fv
        if kind == "value":
            return (1 - fu) * (1 - fv), fu * (1 - fv), (1 - fu) * fv, fu * fv
        if kind == "du":
            return -(1 - fv), 1 - fv, -fv, fv
        if kind == "dv":
            return -(1 - fu), -fu, 1 - fu, fu
        one = fu.dtype.type(1)
        return one, -one, -one, one


def _padded_pixels(x: Any) -> Any:
    """``x`` zero-padded by one pixel, as rows of channels: ``(n * (h+2) * (w+2), c)``."""
    xp = backend.get_array_module(x)
    n, c, _, _ = x.shape
    padded = xp.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="constant")
    return padded.transpose(0, 2, 3, 1).reshape(-1, c)


class _BilinearGather(FunctionNode):
    """``(image, grid) -> samples`` for one kind of corner weights."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, grid = inputs
        xp = backend.get_array_module(x)
        n, c, height, width = x.shape
        geometry = _Geometry(grid, height, width)
        pixels = _padded_pixels(x)
        corners, weights = geometry.corners, geometry.weights(self.kind)
        # Corner by corner in Chainer's order, for the same rounding.
        y = pixels[corners[0]] * xp.asarray(weights[0], dtype=x.dtype)[..., None]
        for corner, weight in zip(corners[1:], weights[1:]):
            y = y + pixels[corner] * xp.asarray(weight, dtype=x.dtype)[..., None]
        out_h, out_w = grid.shape[2:]
        return y.reshape(n, out_h, out_w, c).transpose(0, 3, 1, 2),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, grid = self.get_retained_inputs()
        gy, = grad_outputs
        gx = None
        if 0 in indexes:
            gx = _BilinearScatter(self.kind, x.shape).apply((gy, grid))[0]
        ggrid = None
        if 1 in indexes:
            ggrid = _grid_gradient(self.kind, grid, gy, x)
        return gx, ggrid


class _BilinearScatter(FunctionNode):
    """``(samples, grid) -> image``: the transpose of :class:`_BilinearGather`."""

    def __init__(self, kind: str, image_shape: tuple[int, ...]) -> None:
        self.kind = kind
        self.image_shape = tuple(image_shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        samples, grid = inputs
        xp = backend.get_array_module(samples)
        n, c, height, width = self.image_shape
        geometry = _Geometry(grid, height, width)
        rows = samples.reshape(n, c, -1).transpose(0, 2, 1)
        total = xp.zeros((n * (height + 2) * (width + 2), c), dtype=samples.dtype)
        for corner, weight in zip(geometry.corners, geometry.weights(self.kind)):
            values = rows * xp.asarray(weight, dtype=samples.dtype)[..., None]
            values = xp.broadcast_to(values, rows.shape).reshape(-1, c)
            add_at(total, corner.reshape(-1), values)
        image = total.reshape(n, height + 2, width + 2, c)[:, 1:-1, 1:-1].transpose(0, 3, 1, 2)
        return xp.ascontiguousarray(image),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        samples, grid = self.get_retained_inputs()
        gimage, = grad_outputs
        gsamples = None
        if 0 in indexes:
            gsamples = _BilinearGather(self.kind).apply((gimage, grid))[0]
        ggrid = None
        if 1 in indexes:
            ggrid = _grid_gradient(self.kind, grid, samples, gimage)
        return gsamples, ggrid


def _grid_gradient(kind: str, grid: Any, samples: Any, image: Any) -> Any:
    """Gradient with respect to the grid of ``<samples, gather_kind(image, grid)>``: per axis,
    the channel sum of ``samples`` times the gather of the derived kind, times the axis's
    (masked) scale."""
    xp = backend.get_array_module(grid)
    grid_array = grid.array
    height, width = image.shape[2:]
    geometry = _Geometry(grid_array, height, width)
    out_shape = (grid_array.shape[0],) + grid_array.shape[2:]
    axes = []
    for axis in (0, 1):
        derived = _DERIVATIVE.get((kind, axis))
        if derived is None:
            axes.append(variable.Variable(xp.zeros(out_shape, dtype=grid_array.dtype)))
            continue
        gathered = _BilinearGather(derived).apply((image, grid))[0]
        scale = geometry.scale[axis].reshape(out_shape)
        axes.append(_sum(samples * gathered, axis=1) * scale)
    return stack(axes, axis=1)


class SpatialTransformerSampler(OldStyleCall, _BilinearGather):
    """Bilinear sampler: a gather of the "value" kind (NOTE [bilinear kinds]) with Chainer's
    type check. Use :func:`spatial_transformer_sampler`.

    Compat: a ``FunctionNode`` (Chainer's is an old-style ``Function``); calling an instance
    works as Chainer's ``Function.__call__`` does.
    """

    def __init__(self) -> None:
        super().__init__("value")

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, grid = self.get_retained_inputs()
        arrays = _gradient_arrays(x.array, grid.array, grad_outputs[0].array)
        if records_a_graph():
            return gradients_with_values(super().backward(indexes, grad_outputs), arrays,
                                         indexes)
        return gradients_without_graph(arrays, indexes)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "grid"))
        x_type, grid_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            grid_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            grid_type.ndim == 4,
            grid_type.shape[1] == 2,
            x_type.shape[0] == grid_type.shape[0],
        )


def _gradient_arrays(x: Any, grid: Any, gy: Any) -> tuple[Any, Any]:
    """The sampler's gradients for ``x`` and ``grid`` on arrays, in Chainer's arithmetic:
    NOTE [old-style gradients] in functions/_old_style.py."""
    xp = backend.get_array_module(x)
    batch, channels, height, width = x.shape
    points = grid.shape[2] * grid.shape[3]
    padded = xp.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="constant")
    u, v, u_clipped, v_clipped, u0, v0 = _padded_positions(
        grid.reshape(batch, 2, points), height, width)
    u1, v1 = u0 + 1, v0 + 1
    # The weights of the far and the near pixel along each axis, rounded once from float64.
    wu0 = (u_clipped - u0).astype(gy.dtype, copy=False)
    wu1 = (u1 - u_clipped).astype(gy.dtype, copy=False)
    wv0 = (v_clipped - v0).astype(gy.dtype, copy=False)
    wv1 = (v1 - v_clipped).astype(gy.dtype, copy=False)
    samples = xp.arange(batch)[:, None]

    def corner(rows: Any, cols: Any) -> Any:
        # (batch, points, channels): each point's pixel, every channel.
        return padded.transpose(0, 2, 3, 1)[samples, rows, cols]

    x00, x01, x10, x11 = corner(v0, u0), corner(v0, u1), corner(v1, u0), corner(v1, u1)
    gu = -wv1[:, :, None] * x00
    gu += wv1[:, :, None] * x01
    gu -= wv0[:, :, None] * x10
    gu += wv0[:, :, None] * x11
    gv = -wu1[:, :, None] * x00
    gv -= wu0[:, :, None] * x01
    gv += wu1[:, :, None] * x10
    gv += wu0[:, :, None] * x11
    out_shape = (batch, grid.shape[2], grid.shape[3])
    gu = gu.reshape(out_shape + (channels,)).transpose(0, 3, 1, 2)
    gv = gv.reshape(out_shape + (channels,)).transpose(0, 3, 1, 2)
    gu *= gy
    gv *= gy
    gu = xp.sum(gu, axis=1)
    gv = xp.sum(gv, axis=1)
    # From padded pixels back to grid units; no gradient outside the padded image.
    u, v = u.reshape(out_shape), v.reshape(out_shape)
    gu = gu / 2. * (width - 1) * (u > 0) * (u < (width + 1))
    gv = gv / 2. * (height - 1) * (v > 0) * (v < (height + 1))
    ggrid = xp.concatenate((gu[:, None], gv[:, None]), axis=1)
    gx = xp.zeros_like(padded)
    gy = gy.reshape(batch, channels, -1)
    # Sample by sample, corner by corner, in Chainer's order of accumulation.
    for b in range(batch):
        add_at(gx[b], (slice(None), v0[b], u0[b]), gy[b] * wu1[b] * wv1[b])
        add_at(gx[b], (slice(None), v0[b], u1[b]), gy[b] * wu0[b] * wv1[b])
        add_at(gx[b], (slice(None), v1[b], u0[b]), gy[b] * wu1[b] * wv0[b])
        add_at(gx[b], (slice(None), v1[b], u1[b]), gy[b] * wu0[b] * wv0[b])
    return gx[:, :, 1:-1, 1:-1], ggrid


def spatial_transformer_sampler(x: Any, grid: Any, **kwargs: Any) -> variable.Variable:
    """Samples ``x`` bilinearly at the ``grid`` coordinates (a spatial transformer's sampler).

    Coordinates are normalized: ``(-1, -1)`` is the centre of the upper-left pixel and
    ``(1, 1)`` that of the lower-right one. Outside the image the input reads as zero
    padding; beyond the padding, the nearest padding pixel is used.

    Args:
        x: Input Variable or array of shape ``(n, c, h, w)``.
        grid: Variable or array of shape ``(n, 2, h_O, w_O)`` of ``x``'s dtype: the ``x``
            (horizontal) then ``y`` (vertical) coordinate of each output pixel.

    Returns:
        A Variable of shape ``(n, c, h_O, w_O)``.

    Raises:
        ValueError: For the removed ``use_cudnn`` option (use
            ``chainer.using_config('use_cudnn', ...)``).
        TypeError: For any other keyword argument.
        chainer_compat.utils.type_check.InvalidType: If the shapes or dtypes do not fit.

    Compat: the result can be differentiated any number of times (Chainer's gradient is not
    differentiable).
    """
    if kwargs:
        argument.check_unexpected_kwargs(
            kwargs, use_cudnn="The argument \"use_cudnn\" is not supported anymore. "
            "Use chainer.using_config('use_cudnn', value) context where value can be "
            "`always`, `never`, or `auto`.")
        argument.assert_kwargs_empty(kwargs)
    return SpatialTransformerSampler()(x, grid)
