"""``deformable_convolution_2d_sampler``: a 2-D convolution whose sampling positions move by
learned offsets, sampled bilinearly from the zero-padded input.

Layer 5: imports backend, variable, utils.conv and functions (array, math). It is a composition
of differentiable functions, so gradients of any order exist.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.get_item import get_item
from chainer_compat.functions.array.pad import pad as pad_
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math.clip import clip
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.utils.conv import _int_pair


def _bilinear_sample(image: variable.Variable, u: variable.Variable,
                     v: variable.Variable) -> variable.Variable:
    """Samples ``image`` ``(n, c, H, W)`` at pixel coordinates ``(u, v)`` ``(n, P)``.

    ``u`` runs along the width and ``v`` along the height; a sample reads zeros outside the
    image, and a coordinate more than one pixel outside is moved to one pixel outside (where
    its gradient is zero). Returns ``(n, P, c)``.
    """
    n, channels, height, width = image.shape
    # One more ring of zeros: a sample just outside the image reads it.
    ring = pad_(image, ((0, 0), (0, 0), (1, 1), (1, 1)), "constant")
    u = clip(u + 1, 0.0, float(width + 1))
    v = clip(v + 1, 0.0, float(height + 1))
    xp = backend.get_array_module(u.array)
    u0 = xp.clip(xp.floor(u.array).astype(numpy.int64), 0, width)
    v0 = xp.clip(xp.floor(v.array).astype(numpy.int64), 0, height)
    u1, v1 = u0 + 1, v0 + 1
    weight_u0, weight_u1 = u - u0.astype(u.dtype), u1.astype(u.dtype) - u
    weight_v0, weight_v1 = v - v0.astype(v.dtype), v1.astype(v.dtype) - v
    ring_width = width + 2
    pixels = reshape(transpose(ring, (0, 2, 3, 1)), (-1, channels))
    first_pixel = (xp.arange(n) * (height + 2) * ring_width)[:, None]

    def corner(rows: Any, columns: Any, weight: variable.Variable) -> variable.Variable:
        index = (first_pixel + rows * ring_width + columns).ravel()
        values = reshape(get_item(pixels, index), (n, -1, channels))
        return values * broadcast_to(reshape(weight, weight.shape + (1,)), values.shape)

    return (corner(v0, u0, weight_u1 * weight_v1) + corner(v0, u1, weight_u0 * weight_v1)
            + corner(v1, u0, weight_u1 * weight_v0) + corner(v1, u1, weight_u0 * weight_v0))


def deformable_convolution_2d_sampler(x: Any, offset: Any, W: Any, b: Any = None,
                                      stride: Any = 1, pad: Any = 0) -> variable.Variable:
    """Two-dimensional deformable convolution with given offsets.

    Output position ``(i, j)`` and filter tap ``(p, q)`` read the zero-padded input at
    ``(i s_Y + p + dy, j s_X + q + dx)``, sampled bilinearly, where ``dx`` and ``dy`` are
    ``offset[:, p k_W + q, i, j]`` and ``offset[:, k_H k_W + p k_W + q, i, j]``; the taps are
    then weighted by ``W`` and summed as in a convolution.

    Args:
        x: Input ``(n, c_I, h, w)``.
        offset: Offsets ``(n, 2 k_H k_W, h_O, w_O)``: first the horizontal ones for every tap,
            then the vertical ones. Its last two axes set the output size, normally
            ``(h + 2 p_H - k_H) // s_Y + 1`` by ``(w + 2 p_W - k_W) // s_X + 1``.
        W: Filters ``(c_O, c_I, k_H, k_W)``.
        b: Bias ``(c_O,)``, or None.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.

    Returns:
        The output ``(n, c_O, h_O, w_O)``.

    Raises:
        ValueError: If ``offset``'s second axis is not ``2 k_H k_W``.

    See: `Deformable Convolutional Networks <https://arxiv.org/abs/1703.06211>`_.
    """
    sy, sx = _int_pair(stride)
    ph, pw = _int_pair(pad)
    out_channels, _, kh, kw = W.shape
    n, channels, _, _ = x.shape
    _, offset_channels, out_h, out_w = offset.shape
    taps = kh * kw
    if offset_channels != 2 * taps:
        # compat: Chainer's wording.
        raise ValueError("The shape of the offset does not match the kernel size")
    x = variable.as_variable(x)
    offset = variable.as_variable(offset)
    xp = backend.get_array_module(offset.array)
    dtype = offset.dtype
    # The undeformed sampling grid, tap by tap: (taps, out_h, out_w).
    tap_rows, tap_columns = xp.divmod(xp.arange(taps), kw)
    grid_shape = (n, taps, out_h, out_w)
    base_u = xp.broadcast_to(
        tap_columns[:, None, None] + sx * xp.arange(out_w)[None, None, :], grid_shape)
    base_v = xp.broadcast_to(
        tap_rows[:, None, None] + sy * xp.arange(out_h)[None, :, None], grid_shape)
    base_u, base_v = base_u.astype(dtype), base_v.astype(dtype)
    u = reshape(get_item(offset, (slice(None), slice(None, taps))) + base_u, (n, -1))
    v = reshape(get_item(offset, (slice(None), slice(taps, None))) + base_v, (n, -1))
    padded = pad_(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), "constant")
    samples = _bilinear_sample(padded, u, v)  # (n, taps * out_h * out_w, c_I)
    samples = reshape(samples, (n, taps, out_h * out_w, channels))
    columns = reshape(transpose(samples, (0, 2, 3, 1)), (n * out_h * out_w, channels * taps))
    y = matmul(columns, reshape(W, (out_channels, channels * taps)), transb=True)
    y = transpose(reshape(y, (n, out_h, out_w, out_channels)), (0, 3, 1, 2))
    if b is not None:
        y = y + broadcast_to(reshape(b, (1, out_channels, 1, 1)), y.shape)
    return y
