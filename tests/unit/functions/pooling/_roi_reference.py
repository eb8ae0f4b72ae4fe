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
        for ph in range(outh):
            h0, h1 = _integer_bin(ph, roi_h, outh, y_min, height)
            for pw in range(outw):
                w0, w1 = _integer_bin(pw, roi_w, outw, x_min, width)
                if h1 <= h0 or w1 <= w0:
                    continue
                for ch in range(c):
                    if mode == "average":
                        weight = 1.0 / ((h1 - h0) * (w1 - w0))
                        jacobian[r, ch, ph, pw, b, ch, h0:h1, w0:w1] = weight
                        values[r, ch, ph, pw] = float(x[b, ch, h0:h1, w0:w1].mean())
                        continue
                    best = (h0, w0)
                    for i in range(h0, h1):
                        for j in range(w0, w1):
                            if x[b, ch, i, j] > x[b, ch, best[0], best[1]]:
                                best = (i, j)
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


def roi_align(x, boxes, batches, outh, outw, scale, sampling_ratio, mode):
    """Jacobian of ROI average or max align; also returns the values (``-inf`` for a max
    bin with no sample)."""
    n, c, height, width = x.shape
    ratio_h, ratio_w = (sampling_ratio if isinstance(sampling_ratio, tuple)
                        else (sampling_ratio, sampling_ratio))
    jacobian = numpy.zeros((len(boxes), c, outh, outw) + x.shape)
    values = numpy.zeros((len(boxes), c, outh, outw))
    for r, (box, b) in enumerate(zip(boxes, batches)):
        start_h, start_w, end_h, end_w = (float(v) * scale for v in box)
        roi_h = max(end_h - start_h, 1.0)
        roi_w = max(end_w - start_w, 1.0)
        bin_h, bin_w = roi_h / outh, roi_w / outw
        grid_h = ratio_h if ratio_h is not None else math.ceil(roi_h / outh)
        grid_w = ratio_w if ratio_w is not None else math.ceil(roi_w / outw)
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
