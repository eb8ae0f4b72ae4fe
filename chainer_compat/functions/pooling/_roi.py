"""Shared machinery of the ROI pooling and align functions: argument checks, bin and sample
geometry, reductions in Chainer's CPU order, a sparse linear map (``SampleTable``) with the two
nodes that apply it and its transpose, and the base node of the functions taking ROI indices.
Layer 5: imports backend, function_node, functions._old_style and type_check.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.utils import type_check
from chainer_compat.utils._scatter import add_in_order

# NOTE [ROI tables]
# For fixed ROIs every ROI function is a sparse linear map from x to y: each output entry is a
# weighted sum of input pixels (the maximum's pixel for max pooling, the bilinear taps of the
# chosen sample for max align, every tap of every sample for average align). Forward builds that
# map once as a ``SampleTable``; the gradient is its transpose, and the gradient of the transpose
# is the map again, so every ROI function can be differentiated any number of times. ROIs and
# ROI indices get no gradient, as in Chainer.

# NOTE [ROI gradient order]
# Chainer's CPU gradients add one term at a time into an array of the gradient's dtype, ROI by
# ROI, then bin by bin in row-major order, then sample by sample and tap by tap (channel by
# channel too, which does not matter: channels never share a pixel). The align functions
# compute each term in float64 (NumPy 1 promotes the scalars they multiply) and round the
# running sum to float32 after every addition; the poolings add ``gy`` (max) or ``gy`` divided
# by the bin's height and then its width (average) in the dtype. ``add_in_order`` adds in
# entry order and, given float64 terms, adds in float64 and rounds into the target, so tables
# whose entries are in that order give the same bits. Forward, the align functions sum their
# taps in float64 in the same order, which ``SampleTable.apply`` and ``tap_sums`` do; the
# poolings reduce each bin as Chainer does (``bin_blocks``).


def pair(value: Any) -> tuple[Any, Any]:
    """``(value, value)`` for a scalar; an iterable is unpacked into two items."""
    if isinstance(value, Iterable):
        first, second = value
        return first, second
    return value, value


def check_outsize(outsize: Any) -> tuple[int, int]:
    """Validates an ``outsize`` argument and returns ``(outh, outw)``.

    Raises:
        TypeError: If either size is not a positive integer (Chainer's exception type).
    """
    sizes: tuple[Any, Any] = pair(outsize)
    for axis, size in enumerate(sizes):
        if not (isinstance(size, numbers.Integral) and int(size) > 0):
            # compat: Chainer's sentence first, which users may match on.
            raise TypeError(
                f"outsize[{axis}] must be positive integer: {type(size)}, {size}\n"
                f"outsize must be a positive int or a pair of them, got {outsize!r}")
    return int(sizes[0]), int(sizes[1])


def check_spatial_scale(spatial_scale: Any) -> float:
    """Validates ``spatial_scale`` (a positive real; ints are accepted) and returns a float.

    Raises:
        TypeError: If it is not a positive real number (Chainer's exception type).
        ValueError: If it is infinite (Chainer's forward fails with a ValueError then).
    """
    if isinstance(spatial_scale, numbers.Integral):
        spatial_scale = float(int(spatial_scale))
    if not (isinstance(spatial_scale, numbers.Real) and float(spatial_scale) > 0):
        # compat: Chainer's sentence first, which users may match on.
        raise TypeError(
            f"spatial_scale must be a positive float number: {type(spatial_scale)}, "
            f"{spatial_scale}\n"
            f"spatial_scale must be a positive real, got {spatial_scale!r}")
    check_finite_scale(spatial_scale)
    return float(spatial_scale)


def check_finite_scale(spatial_scale: Any) -> None:
    """Raises ValueError if ``spatial_scale`` is a real that is not finite.

    Every scaled corner would be infinite or NaN; Chainer's forward fails converting them to
    pixels, with a ValueError.
    """
    if isinstance(spatial_scale, numbers.Real) and not math.isfinite(spatial_scale):
        raise ValueError(
            f"spatial_scale must be finite, got {spatial_scale!r}: pass the factor from ROI "
            "coordinates to x's pixels, e.g. 1 / 16 for a feature map of stride 16")


def check_sampling_ratio(sampling_ratio: Any) -> tuple[int | None, int | None]:
    """Validates ``sampling_ratio`` (None, an int >= 1, or a pair of them).

    Raises:
        TypeError: If an entry is neither None nor an integer of at least 1, or a sequence
            has another length than two (Chainer's type for a bad ``sampling_ratio``).
    """
    ratios = sampling_ratio if isinstance(sampling_ratio, Iterable) else (
        sampling_ratio, sampling_ratio)
    entries = tuple(ratios)
    # A str is a sequence to Chainer too. Chainer ignores entries past the second; more (or
    # fewer) than two are an error here.
    if len(entries) != 2 or not all(
            ratio is None or (isinstance(ratio, numbers.Integral) and int(ratio) >= 1)
            for ratio in entries):
        # compat: Chainer's sentence first, which users may match on.
        raise TypeError(
            f"sampling_ratio must be integer >= 1 or a pair of it: {ratios}\n"
            f"sampling_ratio must be None, an int >= 1 or a pair of them, got "
            f"{sampling_ratio!r}")
    first, second = entries
    return (None if first is None else int(first), None if second is None else int(second))


def check_roi_types(in_types: Any, float32_only: bool = False) -> None:
    """Type check of ``(x, rois, roi_indices)`` for the four-column ROI functions."""
    type_check._argname(in_types, ("x", "rois", "roi_indices"))
    x_type, roi_type, index_type = in_types
    if float32_only:
        # compat: Chainer's align functions accept float32 only.
        type_check.expect(x_type.dtype == numpy.float32, roi_type.dtype == numpy.float32)
    else:
        type_check.expect(x_type.dtype.kind == "f", x_type.dtype == roi_type.dtype)
    type_check.expect(
        x_type.ndim == 4,
        roi_type.ndim == 2,
        roi_type.shape[1] == 4,
        index_type.dtype == numpy.int32,
        index_type.ndim == 1,
        roi_type.shape[0] == index_type.shape[0],
    )


def integer_bins(start: Any, length: Any, bins: int, limit: int) -> tuple[Any, Any]:
    """Pixel ranges ``[first, stop)`` of ``bins`` equal bins over ROIs of integer extent.

    Args:
        start: ROI start pixel of each ROI, an integer array of shape ``(R,)``.
        length: ROI extent in pixels (at least 1), an array of shape ``(R,)``.
        bins: Number of output bins along the axis.
        limit: Size of the input along the axis; ranges are clipped to ``[0, limit]``.

    Returns:
        ``first`` and ``stop``, integer arrays of shape ``(R, bins)``; a bin is empty where
        ``stop <= first``.
    """
    xp = backend.get_array_module(start)
    stride = length.astype(numpy.float64) / bins
    index = xp.arange(bins, dtype=numpy.float64)
    first = xp.floor(index * stride[:, None]).astype(numpy.int64) + start[:, None]
    stop = xp.ceil((index + 1) * stride[:, None]).astype(numpy.int64) + start[:, None]
    return xp.clip(first, 0, limit), xp.clip(stop, 0, limit)


def bilinear_taps(coordinate: Any, limit: int) -> tuple[Any, Any, Any, Any]:
    """The two bilinear taps of each sample coordinate along one axis, as ROI align uses them.

    A sample outside ``[-1, limit]`` is invalid; one within a pixel of the border reads the
    border pixel with full weight. A tap counts only with positive weight inside the input.

    Args:
        coordinate: Float64 sample coordinates, any shape ``S``.
        limit: Size of the input along the axis.

    Returns:
        ``(valid, index, weight, tap_valid)``: ``valid`` of shape ``S``; ``index``, ``weight``
        and ``tap_valid`` of shape ``S + (2,)`` for the low and the high tap.
    """
    xp = backend.get_array_module(coordinate)
    valid = (coordinate >= -1) & (coordinate <= limit)
    low = xp.floor(coordinate).astype(numpy.int64)
    low = xp.where(low == limit, limit - 1, low)
    high = low + 1
    clamped = xp.where(low <= -1, 0.0, xp.where(high >= limit, float(limit - 1), coordinate))
    index = xp.stack([low, high], axis=-1)
    weight = xp.stack([high - clamped, clamped - low], axis=-1)
    tap_valid = (weight > 0) & (index >= 0) & (index <= limit - 1) & valid[..., None]
    return valid, xp.clip(index, 0, limit - 1), weight, tap_valid


class SampleTable:
    """A sparse linear map from ``x`` of shape ``(N, C, H, W)`` to ``y`` of shape
    ``(R, C, OH, OW)``: ``y[target] += weight * x[source]`` over its entries, then divided by
    each of ``divisors`` in turn.

    In a shared table each entry links ROI bin ``target`` (a flat index over
    ``(R, OH, OW)``) with pixel ``source`` (a flat index over ``(N, H, W)``) in every channel
    alike. Otherwise each entry links one channel: ``target`` is a flat index over
    ``(R, C, OH, OW)`` and ``source`` one over ``(N, C, H, W)``.

    The transpose (the gradient) keeps Chainer's CPU arithmetic, see NOTE [ROI gradient
    order].

    Args:
        source: Flat input index of each entry (see above).
        target: Flat output index of each entry (see above).
        weight: Float64 weight of each entry.
        shared: Whether the entries are shared by all channels.
        in_shape: Shape of ``x``.
        out_shape: Shape of ``y``.
        divisors: Arrays indexed like ``target``'s values (one entry per output, or per bin
            of a shared table) that each output is divided by, in order.
        float64_gradient: Whether the gradient's terms are computed in float64 (the align
            functions) or in the gradient's own dtype (the poolings).
    """

    def __init__(self, source: Any, target: Any, weight: Any, shared: bool,
                 in_shape: tuple[int, ...], out_shape: tuple[int, ...],
                 divisors: tuple[Any, ...] = (), float64_gradient: bool = True) -> None:
        self.source = source
        self.target = target
        self.weight = weight
        self.shared = shared
        self.in_shape = tuple(int(size) for size in in_shape)
        self.out_shape = tuple(int(size) for size in out_shape)
        self.divisors = divisors
        self.float64_gradient = float64_gradient

    def _weighted(self, values: Any, weight: Any) -> Any:
        """``values * weight`` per entry."""
        return values * (weight[:, None] if self.shared else weight)

    def apply(self, x: Any, dtype: Any = None) -> Any:
        """``y``, accumulated in float64 in entry order and returned in ``dtype`` (``x``'s
        by default)."""
        xp = backend.get_array_module(x)
        n, c, h, w = self.in_shape
        r, _, out_h, out_w = self.out_shape
        if self.shared:
            pixels = x.transpose(0, 2, 3, 1).reshape(n * h * w, c)
            values = self._weighted(pixels[self.source], self.weight)
            total = xp.zeros((r * out_h * out_w, c), dtype=numpy.float64)
        else:
            values = self._weighted(x.reshape(-1)[self.source], self.weight)
            total = xp.zeros(r * c * out_h * out_w, dtype=numpy.float64)
        add_in_order(total, self.target, values)
        for divisor in self.divisors:
            total /= divisor[:, None] if self.shared else divisor
        if self.shared:
            y = total.reshape(r, out_h, out_w, c).transpose(0, 3, 1, 2)
        else:
            y = total.reshape(self.out_shape)
        return xp.ascontiguousarray(y.astype(x.dtype if dtype is None else dtype, copy=False))

    def _terms(self, output_grad: Any) -> Any:
        """Each entry's term of the gradient, in the precision NOTE [ROI gradient order]
        gives."""
        if self.float64_gradient:
            terms = self._weighted(output_grad.astype(numpy.float64), self.weight)
        else:
            terms = self._weighted(output_grad, self.weight.astype(output_grad.dtype))
        for divisor in self.divisors:
            divisor = divisor[self.target].astype(terms.dtype, copy=False)
            terms = terms / (divisor[:, None] if self.shared else divisor)
        return terms

    def transpose(self, gy: Any) -> Any:
        """The transposed map applied to ``gy``: an array of ``x``'s shape and ``gy``'s dtype,
        summed in entry order (see NOTE [ROI gradient order])."""
        xp = backend.get_array_module(gy)
        n, c, h, w = self.in_shape
        if self.shared:
            bins = gy.transpose(0, 2, 3, 1).reshape(-1, c)
            total = xp.zeros((n * h * w, c), dtype=gy.dtype)
            add_in_order(total, self.source, self._terms(bins[self.target]))
            return xp.ascontiguousarray(total.reshape(n, h, w, c).transpose(0, 3, 1, 2))
        total = xp.zeros(n * c * h * w, dtype=gy.dtype)
        add_in_order(total, self.source, self._terms(gy.reshape(-1)[self.target]))
        return total.reshape(self.in_shape)


class TableApply(FunctionNode):
    """Applies a :class:`SampleTable` to its one input; the gradient of an ROI function's
    gradient (see NOTE [ROI tables])."""

    def __init__(self, table: SampleTable) -> None:
        self.table = table

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.table.apply(inputs[0]),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return TableTranspose(self.table).apply(grad_outputs)


class TableTranspose(FunctionNode):
    """Applies the transpose of a :class:`SampleTable`: the gradient of an ROI function with
    respect to ``x`` (see NOTE [ROI tables])."""

    def __init__(self, table: SampleTable) -> None:
        self.table = table

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.table.transpose(inputs[0]),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return TableApply(self.table).apply(grad_outputs)


class IndexedROINode(OldStyleCall, FunctionNode):
    """Base of the ROI functions that take ``(x, rois, roi_indices)``: the max and average
    poolings and aligns. Forward sets ``_table``; the gradient for ``x`` is its transpose and
    the ROIs get none (see NOTE [ROI tables]).

    Compat: Chainer's are old-style ``Function``s; calling an instance works as Chainer's
    ``Function.__call__`` does.

    Args:
        outsize: Output ``(height, width)``, or an int for both.
        spatial_scale: Positive factor from ROI coordinates to ``x``'s pixels.

    Raises:
        TypeError: If ``outsize`` or ``spatial_scale`` is out of range.
    """

    def __init__(self, outsize: Any, spatial_scale: Any) -> None:
        self.outh, self.outw = check_outsize(outsize)
        self.spatial_scale = check_spatial_scale(spatial_scale)
        self._table: Any = None

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if not records_a_graph():
            gx_array = self._table.transpose(grad_outputs[0].array)
            return gradients_without_graph((gx_array, None, None), indexes)
        gx, = TableTranspose(self._table).apply(grad_outputs)
        return tuple((gx, None, None)[index] for index in indexes)


def bin_blocks(x: Any, batch: Any, h_first: Any, h_stop: Any, w_first: Any,
               w_stop: Any) -> Iterator[tuple[Any, Any, Any, int, int, Any]]:
    """The non-empty integer bins of every ROI as Chainer's CPU loop sees them, grouped by
    extent: each bin's pixels form a ``(C, pixels)`` block in row-major pixel order.

    Yields:
        ``(roi, ph, pw, rows, cols, block)``: the bins of one ``rows x cols`` extent (index
        arrays of shape ``(B,)``) and their blocks, a contiguous array of shape
        ``(B, C, rows * cols)``. Reducing it along its last axis reduces each row as NumPy
        reduces Chainer's ``(C, pixels)`` block.
    """
    xp = backend.get_array_module(x)
    n, c, h, w = x.shape
    r, out_h = h_first.shape
    out_w = w_first.shape[1]
    height = xp.broadcast_to(xp.maximum(h_stop - h_first, 0)[:, :, None], (r, out_h, out_w))
    width = xp.broadcast_to(xp.maximum(w_stop - w_first, 0)[:, None, :], (r, out_h, out_w))
    extents = height * (w + 1) + width
    # The distinct bin extents, read to the host once.
    kinds = [int(kind) for kind in xp.unique(extents[(height > 0) & (width > 0)]).tolist()]
    planes = x.reshape(n, c, h * w)
    channels = xp.arange(c)[None, :, None]
    for kind in kinds:
        rows, cols = divmod(kind, w + 1)
        roi, ph, pw = xp.nonzero(extents == kind)
        pixel = ((h_first[roi, ph][:, None, None] + xp.arange(rows)[:, None]) * w
                 + w_first[roi, pw][:, None, None] + xp.arange(cols)).reshape(-1, rows * cols)
        block = planes[batch[roi][:, None, None], channels, pixel[:, None, :]]
        yield roi, ph, pw, rows, cols, block


def max_pooling(x: Any, batch: Any, h_first: Any, h_stop: Any, w_first: Any, w_stop: Any,
                empty_value: float) -> tuple[Any, Any, Any]:
    """ROI max pooling over integer bins, as Chainer's CPU loop computes it.

    Each bin's value is ``numpy.max`` and its pixel ``numpy.argmax`` (the first maximum in
    row-major order, or the first NaN) of its ``(C, pixels)`` block.

    Args:
        x: Input of shape ``(N, C, H, W)``.
        batch: Image index of each ROI, shape ``(R,)``.
        h_first, h_stop: Row ranges of each bin, shape ``(R, OH)`` (see :func:`integer_bins`).
        w_first, w_stop: Column ranges of each bin, shape ``(R, OW)``.
        empty_value: The value of an empty bin.

    Returns:
        ``(y, position, empty)``: the values, of shape ``(R, C, OH, OW)``; the flat pixel
        index ``h * W + w`` of each maximum, an int64 array of that shape (0 for an empty
        bin); and a boolean array of shape ``(R, 1, OH, OW)`` marking the empty bins.
    """
    xp = backend.get_array_module(x)
    n, c, h, w = x.shape
    r, out_h = h_first.shape
    out_w = w_first.shape[1]
    y = xp.full((r, c, out_h, out_w), empty_value, dtype=x.dtype)
    position = xp.zeros((r, c, out_h, out_w), dtype=numpy.int64)
    empty = xp.ones((r, 1, out_h, out_w), dtype=bool)
    for roi, ph, pw, _, cols, block in bin_blocks(x, batch, h_first, h_stop, w_first, w_stop):
        best = block.argmax(axis=-1)
        y[roi, :, ph, pw] = block.max(axis=-1)
        position[roi, :, ph, pw] = ((h_first[roi, ph][:, None] + best // cols) * w
                                    + w_first[roi, pw][:, None] + best % cols)
        empty[roi, 0, ph, pw] = False
    return y, position, empty


def max_table(x_shape: tuple[int, ...], batch: Any, position: Any, keep: Any) -> SampleTable:
    """The per-channel table linking each kept output of shape ``(R, C, OH, OW)`` to the pixel
    ``position`` of its maximum with weight 1, in output order (NOTE [ROI gradient order])."""
    xp = backend.get_array_module(position)
    n, c, h, w = x_shape
    r, _, out_h, out_w = position.shape
    channel = xp.arange(c)[None, :, None, None]
    source = (batch[:, None, None, None] * c + channel) * (h * w) + position
    target = xp.nonzero(keep.reshape(-1))[0]
    weight = xp.ones(target.shape, dtype=numpy.float64)
    # The terms gy * 1 are exact in gy's dtype, and so is each sum's single rounding.
    return SampleTable(source.reshape(-1)[target], target, weight, False, x_shape,
                       (r, c, out_h, out_w), float64_gradient=False)


def average_pooling(x: Any, batch: Any, h_first: Any, h_stop: Any, w_first: Any,
                    w_stop: Any) -> Any:
    """ROI average pooling over integer bins, with Chainer's CPU rounding.

    Chainer averages each bin with ``numpy.average`` over its ``(C, pixels)`` block: NumPy's
    pairwise sum along the pixels in ``x``'s dtype (float32 for float16), then one division
    by the pixel count (see :func:`bin_blocks`). An empty bin gives 0.
    """
    xp = backend.get_array_module(x)
    r, out_h = h_first.shape
    sum_dtype = numpy.float32 if x.dtype == numpy.float16 else x.dtype.type
    y = xp.zeros((r, x.shape[1], out_h, w_first.shape[1]), dtype=x.dtype)
    for roi, ph, pw, rows, cols, block in bin_blocks(x, batch, h_first, h_stop, w_first,
                                                      w_stop):
        total = block.astype(sum_dtype, copy=False).sum(axis=-1)
        y[roi, :, ph, pw] = (total / sum_dtype(rows * cols)).astype(x.dtype, copy=False)
    return y


def average_table(x_shape: tuple[int, ...], batch: Any, h_first: Any, h_stop: Any,
                  w_first: Any, w_stop: Any) -> SampleTable:
    """The shared table of ROI average pooling: each bin's pixels with weight 1, divided by
    the bin's height and then its width in the gradient's dtype, as Chainer's CPU gradient
    does; an empty bin has no entries."""
    xp = backend.get_array_module(h_first)
    n, c, h, w = x_shape
    r, out_h = h_first.shape
    out_w = w_first.shape[1]
    height = xp.maximum(h_stop - h_first, 0)
    width = xp.maximum(w_stop - w_first, 0)
    max_rows = max(int(height.max()) if height.size else 0, 1)
    max_cols = max(int(width.max()) if width.size else 0, 1)
    rows = h_first[:, :, None] + xp.arange(max_rows)  # (R, OH, rows)
    cols = w_first[:, :, None] + xp.arange(max_cols)  # (R, OW, cols)
    row_ok = rows < h_stop[:, :, None]
    col_ok = cols < w_stop[:, :, None]
    # (R, OH, OW, rows, cols); nonzero lists the entries in Chainer's order.
    ok = row_ok[:, :, None, :, None] & col_ok[:, None, :, None, :]
    roi, ph, pw, dy, dx = xp.nonzero(ok)
    source = (batch[roi] * h + rows[roi, ph, dy]) * w + cols[roi, pw, dx]
    target = (roi * out_h + ph) * out_w + pw
    # At least 1, so that an empty bin (which has no entries) divides 0 by 1.
    bin_height = xp.broadcast_to(xp.maximum(height, 1)[:, :, None], (r, out_h, out_w))
    bin_width = xp.broadcast_to(xp.maximum(width, 1)[:, None, :], (r, out_h, out_w))
    weight = xp.ones(target.shape, dtype=numpy.float64)
    return SampleTable(source, target, weight, True, x_shape, (r, c, out_h, out_w),
                       divisors=(bin_height.reshape(-1), bin_width.reshape(-1)),
                       float64_gradient=False)


def align_samples(rois: Any, spatial_scale: float, out_h: int, out_w: int,
                  sampling_ratio: tuple[int | None, int | None], height: int,
                  width: int) -> dict[str, Any]:
    """Sample points and bilinear taps of ROI align.

    Each bin of each ROI is sampled on a ``grid_h x grid_w`` grid (the sampling ratio, or
    ``ceil(roi_extent / bins)`` per ROI when it is None); samples are ordered row-major over a
    grid padded to the largest ROI's, and padding samples are invalid.

    Returns:
        A dict with ``valid`` (R, OH, OW, S): whether a sample counts; ``position`` and
        ``weight`` (R, OH, OW, S, 4): its four taps (weight 0 where a tap does not count); and
        ``count`` (R,): the number of grid samples per bin, invalid ones included, which
        average align divides by; ``grid_w`` (R,): each ROI's grid width; ``most_w``: the
        padded grid's width (an int).
    """
    xp = backend.get_array_module(rois)
    scaled = rois.astype(numpy.float64) * spatial_scale
    start_h, start_w, end_h, end_w = scaled[:, 0], scaled[:, 1], scaled[:, 2], scaled[:, 3]
    roi_h = xp.maximum(end_h - start_h, 1.0)
    roi_w = xp.maximum(end_w - start_w, 1.0)
    bin_h = roi_h / out_h
    bin_w = roi_w / out_w
    ratio_h, ratio_w = sampling_ratio
    grid_h = (xp.ceil(roi_h / out_h).astype(numpy.int64) if ratio_h is None
              else xp.full(rois.shape[0], ratio_h, dtype=numpy.int64))
    grid_w = (xp.ceil(roi_w / out_w).astype(numpy.int64) if ratio_w is None
              else xp.full(rois.shape[0], ratio_w, dtype=numpy.int64))
    most_h = max(int(grid_h.max()) if grid_h.size else 0, 1)
    most_w = max(int(grid_w.max()) if grid_w.size else 0, 1)

    def coordinates(start: Any, size: Any, grid: Any, bins: int, most: int) -> Any:
        # (R, bins, most); the same operation order as Chainer, for identical rounding.
        bin_index = xp.arange(bins, dtype=numpy.float64)[None, :, None]
        sample = xp.arange(most, dtype=numpy.float64)[None, None, :]
        return (start[:, None, None] + bin_index * size[:, None, None]
                + (sample + 0.5) * size[:, None, None] / grid[:, None, None])

    y = coordinates(start_h, bin_h, grid_h, out_h, most_h)
    x = coordinates(start_w, bin_w, grid_w, out_w, most_w)
    y_valid, y_index, y_weight, y_tap = bilinear_taps(y, height)
    x_valid, x_index, x_weight, x_tap = bilinear_taps(x, width)
    y_valid &= xp.arange(most_h)[None, None, :] < grid_h[:, None, None]
    x_valid &= xp.arange(most_w)[None, None, :] < grid_w[:, None, None]
    r = rois.shape[0]
    # Broadcast to (R, OH, OW, most_h, most_w, 2, 2): bin row, bin column, sample row,
    # sample column, row tap, column tap.
    valid = y_valid[:, :, None, :, None] & x_valid[:, None, :, None, :]
    position = (y_index[:, :, None, :, None, :, None] * width
                + x_index[:, None, :, None, :, None, :])
    weight = y_weight[:, :, None, :, None, :, None] * x_weight[:, None, :, None, :, None, :]
    tap_ok = (y_tap[:, :, None, :, None, :, None] & x_tap[:, None, :, None, :, None, :]
              & valid[..., None, None])
    weight = xp.where(tap_ok, weight, 0.0)
    samples = most_h * most_w
    return {
        "valid": valid.reshape(r, out_h, out_w, samples),
        "position": xp.broadcast_to(position, weight.shape).reshape(r, out_h, out_w, samples, 4),
        "weight": weight.reshape(r, out_h, out_w, samples, 4),
        "count": (grid_h * grid_w).astype(numpy.float64),
        "grid_w": grid_w,
        "most_w": most_w,
    }


def tap_sums(pixels: Any, source: Any, weight: Any) -> Any:
    """Bilinear sample values, each summed over its taps in float64 in order, as Chainer's
    CPU loop does: an array of shape ``source.shape[:-1] + (C,)``.

    Args:
        pixels: Input laid out as ``(N * H * W, C)``.
        source: Tap pixels ``(n * H + h) * W + w``, the taps along the last axis.
        weight: Float64 tap weights of that shape, 0 where a tap does not count.
    """
    xp = backend.get_array_module(pixels)
    # Chainer's sum starts at +0.0 and skips the taps that do not count (adding +0.0
    # instead changes no sum, and keeps an infinite pixel of weight 0 out).
    total = xp.zeros(source.shape[:-1] + (pixels.shape[1],), dtype=numpy.float64)
    for tap in range(source.shape[-1]):
        tap_weight = weight[..., tap, None]
        term = pixels[source[..., tap]] * tap_weight
        total += xp.where(tap_weight > 0, term, 0.0)
    return total


def shared_table(batch: Any, position: Any, weight: Any, x_shape: tuple[int, ...],
                 out_shape: tuple[int, ...], divisors: tuple[Any, ...] = ()) -> SampleTable:
    """A shared table from taps of shape ``(R, OH, OW, K)``: bin ``(r, ph, pw)`` sums
    ``weight * x`` over its ``K`` taps in order, then divides by ``divisors`` (each of shape
    ``(R, OH, OW)``); zero-weight taps are dropped."""
    xp = backend.get_array_module(weight)
    n, c, h, w = x_shape
    r, out_h, out_w, _ = weight.shape
    roi, ph, pw, k = xp.nonzero(weight != 0)
    target = (roi * out_h + ph) * out_w + pw
    source = batch[roi] * (h * w) + position[roi, ph, pw, k]
    return SampleTable(source, target, weight[roi, ph, pw, k], True, x_shape, out_shape,
                       divisors=tuple(divisor.reshape(-1) for divisor in divisors))


def pooling_bins(rois: Any, spatial_scale: float, out_h: int, out_w: int, height: int,
                 width: int) -> tuple[Any, Any, Any, Any]:
    """Integer bins of ROI max and average pooling over ``(y_min, x_min, y_max, x_max)`` rows.

    Corners are scaled and rounded half to even in float64, as Chainer does; the extent is
    ``max - min`` pixels, at least one.

    Returns:
        ``(h_first, h_stop, w_first, w_stop)`` (see :func:`integer_bins`).
    """
    xp = backend.get_array_module(rois)
    corners = xp.rint(rois.astype(numpy.float64) * spatial_scale).astype(numpy.int64)
    y_min, x_min, y_max, x_max = corners[:, 0], corners[:, 1], corners[:, 2], corners[:, 3]
    h_first, h_stop = integer_bins(y_min, xp.maximum(y_max - y_min, 1), out_h, height)
    w_first, w_stop = integer_bins(x_min, xp.maximum(x_max - x_min, 1), out_w, width)
    return h_first, h_stop, w_first, w_stop
