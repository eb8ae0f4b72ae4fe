"""Scalar-loop references for the ROI and spatial-transformer functions, shared by their unit
tests and tests/conformance/test_roi_conformance.py (which loads this file by path).

Each reference returns the function's Jacobian with respect to ``x`` for the given inputs, a
dense array of shape ``y.shape + x.shape``: ``y = tensordot(J, x)`` and the gradient is
``tensordot(gy, J)``. Only NumPy is used, so the same file serves Chainer and chainer_compat.
"""

from __future__ import annotations

import math

import numpy


def apply(jacobian, x):
    """``y`` from a Jacobian and ``x``."""
    return numpy.tensordot(jacobian, numpy.asarray(x, numpy.float64), axes=x.ndim)


def transpose(jacobian, gy):
    """The gradient with respect to ``x`` from a Jacobian and ``gy``."""
    return numpy.tensordot(numpy.asarray(gy, numpy.float64), jacobian, axes=gy.ndim)


def _integer_bin(index, extent, bins, start, limit):
    stride = extent / bins
    first = math.floor(index * stride) + start
    stop = math.ceil((index + 1) * stride) + start
    return min(max(first, 0), limit), min(max(stop, 0), limit)


def _nonempty_bins(outh, outw, roi_h, roi_w, y_min, x_min, height, width):
    """(ph, pw, h0, h1, w0, w1) for every output bin that covers at least one pixel."""
    for ph in range(outh):
        h0, h1 = _integer_bin(ph, roi_h, outh, y_min, height)
        for pw in range(outw):
            w0, w1 = _integer_bin(pw, roi_w, outw, x_min, width)
            if h0 < h1 and w0 < w1:
                yield ph, pw, h0, h1, w0, w1


def _first_maximum(plane, h0, h1, w0, w1):
    """(i, j) of the first largest pixel of ``plane[h0:h1, w0:w1]`` in row-major order."""
    best = (h0, w0)
    for i in range(h0, h1):
        for j in range(w0, w1):
            if plane[i, j] > plane[best]:
                best = (i, j)
    return best


def roi_pooling(x, boxes, batches, outh, outw, scale, mode, inclusive, empty_value):
    """Jacobian and values of ROI max (``mode="max"``) or average pooling over integer bins.

    ``boxes`` rows are ``(y_min, x_min, y_max, x_max)``; ``inclusive`` selects Fast R-CNN's
    ``max - min + 1`` extent (roi_pooling_2d), which also gives no gradient to a malformed
    ROI. A bin outside the image has value ``empty_value``.
    """
    n, c, height, width = x.shape
    jacobian = numpy.zeros((len(boxes), c, outh, outw) + x.shape)
    values = numpy.full((len(boxes), c, outh, outw), empty_value, dtype=numpy.float64)
    for r, (box, b) in enumerate(zip(boxes, batches)):
        y_min, x_min, y_max, x_max = (round(float(v) * scale) for v in box)
        extra = 1 if inclusive else 0
        roi_h = max(y_max - y_min + extra, 1)
        roi_w = max(x_max - x_min + extra, 1)
        malformed = inclusive and (y_max < y_min or x_max < x_min)
        for ph, pw, h0, h1, w0, w1 in _nonempty_bins(outh, outw, roi_h, roi_w, y_min, x_min,
                                                      height, width):
            for ch in range(c):
                if mode == "average":
                    weight = 1.0 / ((h1 - h0) * (w1 - w0))
                    jacobian[r, ch, ph, pw, b, ch, h0:h1, w0:w1] = weight
                    values[r, ch, ph, pw] = float(x[b, ch, h0:h1, w0:w1].mean())
                    continue
                best = _first_maximum(x[b, ch], h0, h1, w0, w1)
                values[r, ch, ph, pw] = x[b, ch, best[0], best[1]]
                if not malformed:
                    jacobian[r, ch, ph, pw, b, ch, best[0], best[1]] = 1.0
    return jacobian, values


def _bilinear_axis(coordinate, limit):
    """``None`` outside ``[-1, limit]``, else the (index, weight) taps that count."""
    if coordinate < -1 or coordinate > limit:
        return None
    low = math.floor(coordinate)
    if low == limit:
        low = limit - 1
    high = low + 1
    if low <= -1:
        coordinate = 0.0
    elif high >= limit:
        coordinate = float(limit - 1)
    taps = [(low, high - coordinate), (high, coordinate - low)]
    return [(i, w) for i, w in taps if w > 0 and 0 <= i <= limit - 1]


def _align_grid(box, scale, outh, outw, sampling_ratio):
    """(start_h, start_w, bin_h, bin_w, grid_h, grid_w) of one ROI's align sampling grid."""
    ratio_h, ratio_w = (sampling_ratio if isinstance(sampling_ratio, tuple)
                        else (sampling_ratio, sampling_ratio))
    start_h, start_w, end_h, end_w = (float(value) * scale for value in box)
    roi_h = max(end_h - start_h, 1.0)
    roi_w = max(end_w - start_w, 1.0)
    grid_h = ratio_h if ratio_h is not None else math.ceil(roi_h / outh)
    grid_w = ratio_w if ratio_w is not None else math.ceil(roi_w / outw)
    return start_h, start_w, roi_h / outh, roi_w / outw, grid_h, grid_w


def roi_align(x, boxes, batches, outh, outw, scale, sampling_ratio, mode):
    """Jacobian of ROI average or max align; also returns the values (``-inf`` for a max
    bin with no sample)."""
    n, c, height, width = x.shape
    jacobian = numpy.zeros((len(boxes), c, outh, outw) + x.shape)
    values = numpy.zeros((len(boxes), c, outh, outw))
    for r, (box, b) in enumerate(zip(boxes, batches)):
        start_h, start_w, bin_h, bin_w, grid_h, grid_w = _align_grid(
            box, scale, outh, outw, sampling_ratio)
        for ph in range(outh):
            for pw in range(outw):
                samples = []
                for iy in range(grid_h):
                    ys = _bilinear_axis(start_h + ph * bin_h + (iy + 0.5) * bin_h / grid_h,
                                        height)
                    for ix in range(grid_w):
                        xs = _bilinear_axis(start_w + pw * bin_w + (ix + 0.5) * bin_w / grid_w,
                                            width)
                        if ys is not None and xs is not None:
                            samples.append([(i, j, wy * wx) for i, wy in ys for j, wx in xs])
                for ch in range(c):
                    if mode == "average":
                        for taps in samples:
                            for i, j, w in taps:
                                jacobian[r, ch, ph, pw, b, ch, i, j] += w / (grid_h * grid_w)
                        continue
                    best, best_value = None, -numpy.inf
                    for taps in samples:
                        value = sum(w * float(x[b, ch, i, j]) for i, j, w in taps)
                        if value > best_value:
                            best, best_value = taps, value
                    values[r, ch, ph, pw] = best_value
                    for i, j, w in best or []:
                        jacobian[r, ch, ph, pw, b, ch, i, j] += w
    if mode == "average":
        values = apply(jacobian, x)
    return jacobian, values


def spatial_transformer_grid(theta, height, width):
    """The grid, one target pixel at a time."""
    grid = numpy.zeros((theta.shape[0], 2, height, width))
    ys = numpy.linspace(-1, 1, height)
    xs = numpy.linspace(-1, 1, width)
    for b in range(theta.shape[0]):
        for i in range(height):
            for j in range(width):
                grid[b, :, i, j] = theta[b] @ numpy.array([xs[j], ys[i], 1.0])
    return grid


def spatial_transformer_sampler(x_shape, grid):
    """Jacobian of the sampler with respect to ``x`` (zero padding, clamped beyond it)."""
    n, c, height, width = x_shape
    out_h, out_w = grid.shape[2:]
    jacobian = numpy.zeros((n, c, out_h, out_w) + tuple(x_shape))
    for b in range(n):
        for i in range(out_h):
            for j in range(out_w):
                # Padded-image coordinates: pixel k of the image is k + 1; 0 and size + 1 pad.
                u = min(max((grid[b, 0, i, j] + 1) * (width - 1) / 2 + 1, 0.0), width + 1.0)
                v = min(max((grid[b, 1, i, j] + 1) * (height - 1) / 2 + 1, 0.0), height + 1.0)
                u0 = min(math.floor(u), width)
                v0 = min(math.floor(v), height)
                for row, wv in ((v0, v0 + 1 - v), (v0 + 1, v - v0)):
                    for col, wu in ((u0, u0 + 1 - u), (u0 + 1, u - u0)):
                        if 1 <= row <= height and 1 <= col <= width:
                            jacobian[b, :, i, j, b, :, row - 1, col - 1] += (
                                numpy.eye(c) * wv * wu)
    return jacobian


# Bit-exact references: Chainer 7.8.1's CPU arithmetic, one ROI, bin, sample and tap at a
# time, in its order and precision. Every operation names its dtype (Python floats are
# float64), so NumPy 1 and NumPy 2 give the same bits. Each returns ``(y, gx)`` for ``x``
# and an output gradient ``gy``.


def _scaled_corners(box, scale):
    # Chainer multiplies the ROI's scalar by a Python float: float64, rounded half to even.
    return [int(round(float(value) * scale)) for value in box]


def exact_roi_pooling(x, boxes, batches, outh, outw, scale, gy, mode):
    """roi_max_pooling_2d (``mode="max"``) or roi_average_pooling_2d."""
    dtype = x.dtype
    n, c, height, width = x.shape
    y = numpy.full((len(boxes), c, outh, outw), -numpy.inf if mode == "max" else 0, dtype)
    gx = numpy.zeros(x.shape, dtype)
    # numpy.average sums float16 in float32 and divides there.
    sum_dtype = numpy.float32 if dtype == numpy.float16 else dtype.type
    for r, (box, b) in enumerate(zip(boxes, batches)):
        y_min, x_min, y_max, x_max = _scaled_corners(box, scale)
        roi_h = max(y_max - y_min, 1)
        roi_w = max(x_max - x_min, 1)
        for ph, pw, h0, h1, w0, w1 in _nonempty_bins(outh, outw, roi_h, roi_w, y_min, x_min,
                                                      height, width):
            # A contiguous (C, pixels) block, reduced along its last axis as Chainer's
            # numpy.average does.
            block = numpy.ascontiguousarray(x[b, :, h0:h1, w0:w1]).reshape(c, -1)
            if mode == "average":
                total = block.astype(sum_dtype).sum(axis=1)
                y[r, :, ph, pw] = (total / sum_dtype(block.shape[1])).astype(dtype)
                term = gy[r, :, ph, pw] / dtype.type(h1 - h0) / dtype.type(w1 - w0)
                gx[b, :, h0:h1, w0:w1] += term.astype(dtype)[:, None, None]
                continue
            for ch in range(c):
                best = 0
                for k in range(block.shape[1]):
                    if block[ch, k] > block[ch, best]:
                        best = k
                y[r, ch, ph, pw] = block[ch, best]
                i, j = h0 + best // (w1 - w0), w0 + best % (w1 - w0)
                gx[b, ch, i, j] = dtype.type(gx[b, ch, i, j] + gy[r, ch, ph, pw])
    return y, gx


def exact_fast_rcnn_pooling(x, rois, outh, outw, scale, gy):
    """roi_pooling_2d with rows ``(batch, x_min, y_min, x_max, y_max)``.

    The gradient walks each ROI's pixels between its inclusive corners and maps each back
    to the bins around it, as Chainer does; it skips columns outside the image, where
    Chainer's flat pixel index would alias another row's pixel.
    """
    dtype = x.dtype
    n, c, height, width = x.shape
    y = numpy.zeros((len(rois), c, outh, outw), dtype)
    argmax = numpy.zeros(y.shape, numpy.int64)
    gx = numpy.zeros(x.shape, dtype)
    for r, row in enumerate(rois):
        b = int(row[0])
        x_min, y_min, x_max, y_max = _scaled_corners(row[1:], scale)
        roi_h = max(y_max - y_min + 1, 1)
        roi_w = max(x_max - x_min + 1, 1)
        for ph, pw, h0, h1, w0, w1 in _nonempty_bins(outh, outw, roi_h, roi_w, y_min, x_min,
                                                      height, width):
            for ch in range(c):
                best = _first_maximum(x[b, ch], h0, h1, w0, w1)
                y[r, ch, ph, pw] = x[b, ch, best[0], best[1]]
                argmax[r, ch, ph, pw] = best[0] * width + best[1]
        stride_h, stride_w = roi_h / outh, roi_w / outw
        for j in range(max(x_min, 0), min(x_max + 1, width)):
            for i in range(y_min, y_max + 1):
                ph0 = min(max(math.floor((i - y_min) / stride_h), 0), outh)
                ph1 = min(max(math.ceil((i - y_min + 1) / stride_h), 0), outh)
                pw0 = min(max(math.floor((j - x_min) / stride_w), 0), outw)
                pw1 = min(max(math.ceil((j - x_min + 1) / stride_w), 0), outw)
                for ph in range(ph0, ph1):
                    for pw in range(pw0, pw1):
                        for ch in range(c):
                            if argmax[r, ch, ph, pw] == i * width + j:
                                gx[b, ch, i, j] = dtype.type(gx[b, ch, i, j] + gy[r, ch, ph, pw])
    return y, gx


def _exact_bounds(coordinate, limit):
    """Chainer's bilinear bounds: None outside ``[-1, limit]``, else the clamped coordinate
    and the low and high pixel."""
    if coordinate < -1 or coordinate > limit:
        return None
    low = math.floor(coordinate)
    if low == limit:
        low -= 1
    high = low + 1
    if low <= -1:
        coordinate = 0.0
    elif high >= limit:
        coordinate = float(limit - 1)
    return coordinate, low, high


def exact_roi_align(x, boxes, batches, outh, outw, scale, sampling_ratio, gy, mode):
    """roi_max_align_2d (``mode="max"``) or roi_average_align_2d (float32 only). Also
    returns max align's argmax indices (``iy * grid_w + ix``, -1 for an empty bin)."""
    n, c, height, width = x.shape
    y = numpy.zeros((len(boxes), c, outh, outw), numpy.float32)
    argmax = numpy.full(y.shape, -1, numpy.int32)
    gx = numpy.zeros(x.shape, numpy.float32)
    for r, (box, b) in enumerate(zip(boxes, batches)):
        start_h, start_w, bin_h, bin_w, grid_h, grid_w = _align_grid(
            box, scale, outh, outw, sampling_ratio)
        count = grid_h * grid_w
        for ch in range(c):
            for ph in range(outh):
                for pw in range(outw):
                    # Each sample: its grid index and its (pixel row, pixel column, weight)
                    # taps in Chainer's order, weight-0 and outside taps left out.
                    samples = []
                    for iy in range(grid_h):
                        bounds_y = _exact_bounds(
                            start_h + ph * bin_h + (iy + 0.5) * bin_h / grid_h, height)
                        if bounds_y is None:
                            continue
                        for ix in range(grid_w):
                            bounds_x = _exact_bounds(
                                start_w + pw * bin_w + (ix + 0.5) * bin_w / grid_w, width)
                            if bounds_x is None:
                                continue
                            samples.append((iy * grid_w + ix, _exact_taps(
                                bounds_y, bounds_x, height, width)))
                    grad = float(gy[r, ch, ph, pw])
                    if mode == "average":
                        total = 0.0
                        for _, taps in samples:
                            for i, j, w in taps:
                                total += w * float(x[b, ch, i, j])
                                gx[b, ch, i, j] = numpy.float32(
                                    float(gx[b, ch, i, j]) + grad * w / count)
                        y[r, ch, ph, pw] = numpy.float32(total / count)
                        continue
                    best, best_value, best_taps = -1, -math.inf, []
                    for index, taps in samples:
                        value = 0.0
                        for i, j, w in taps:
                            value += w * float(x[b, ch, i, j])
                        if value > best_value:
                            best, best_value, best_taps = index, value, taps
                    y[r, ch, ph, pw] = numpy.float32(best_value)
                    argmax[r, ch, ph, pw] = best
                    for i, j, w in best_taps:
                        gx[b, ch, i, j] = numpy.float32(float(gx[b, ch, i, j]) + grad * w)
    return y, gx, argmax


def _exact_taps(bounds_y, bounds_x, height, width):
    y, y_low, y_high = bounds_y
    x, x_low, x_high = bounds_x
    low_y, high_y = y - y_low, y_high - y
    low_x, high_x = x - x_low, x_high - x
    taps = [(y_low, x_low, high_y * high_x), (y_low, x_high, high_y * low_x),
            (y_high, x_low, low_y * high_x), (y_high, x_high, low_y * low_x)]
    return [(i, j, w) for i, j, w in taps
            if w > 0 and 0 <= i <= height - 1 and 0 <= j <= width - 1]


# Inputs for the bit-exact tests: (x shape, ROI count, outsize, spatial scale). The last two
# have bins of over 8 and over 128 pixels, where NumPy's pairwise sum groups its terms.
EXACT_CASES = [
    ((2, 3, 9, 11), 8, (3, 4), 1.0),
    ((2, 3, 9, 11), 8, 2, 0.6),
    ((2, 1, 7, 5), 6, (1, 5), 0.25),
    ((1, 2, 12, 10), 5, 1, 1.0),
    ((1, 2, 24, 20), 4, (1, 2), 1.7),
]


def exact_inputs(case, dtype, columns_inside=False):
    """``(x, boxes, batches, outh, outw, scale, gy)`` for ``EXACT_CASES[case]``.

    ROIs lie inside the image, across its borders, wholly outside it, and some are malformed
    (max < min) or have corners that round half to even. With ``columns_inside`` their
    scaled, rounded columns stay within the image (see :func:`exact_fast_rcnn_pooling`).
    """
    shape, count, outsize, scale = EXACT_CASES[case]
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    n, c, height, width = shape
    rng = numpy.random.RandomState(100 + case)
    x = rng.standard_normal(shape).astype(dtype)
    extent_h, extent_w = height / scale, width / scale
    y_min = rng.uniform(-0.4 * extent_h, 1.1 * extent_h, count)
    x_min = rng.uniform(-0.4 * extent_w, 1.1 * extent_w, count)
    y_max = y_min + rng.uniform(-0.1 * extent_h, 1.2 * extent_h, count)
    x_max = x_min + rng.uniform(-0.1 * extent_w, 1.2 * extent_w, count)
    boxes = numpy.stack([y_min, x_min, y_max, x_max], axis=1)
    boxes[::3] = numpy.round(boxes[::3] * 2) / 2
    if columns_inside:
        boxes[:, [1, 3]] = numpy.clip(boxes[:, [1, 3]], 0, (width - 1) / scale)
    boxes = boxes.astype(dtype)
    batches = rng.randint(0, n, count).astype(numpy.int32)
    gy = rng.standard_normal((count, c, outh, outw)).astype(dtype)
    return x, boxes, batches, outh, outw, scale, gy


def fast_rcnn_rois(boxes, batches):
    """Rows ``(batch, x_min, y_min, x_max, y_max)`` from ``(y_min, x_min, y_max, x_max)``
    boxes, in the boxes' dtype."""
    return numpy.concatenate([batches[:, None].astype(boxes.dtype), boxes[:, [1, 0, 3, 2]]],
                             axis=1)
