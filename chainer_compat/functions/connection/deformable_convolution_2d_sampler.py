"""``deformable_convolution_2d_sampler``: a 2-D convolution whose sampling positions move by
learned offsets, sampled bilinearly from the zero-padded input.

Layer 5: imports backend, variable, utils.conv and functions (array, math). It is a composition
of differentiable functions (Chainer's), so gradients of any order exist.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.array.pad import pad as pad_
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.spatial_transformer_sampler import (
    spatial_transformer_sampler,
)
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.utils.conv import _size_tuple


def _sampling_grid(offset: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, h: int,
                   w: int) -> variable.Variable:
    """The sampling positions, scaled to [-1, 1] over the padded input as
    :func:`spatial_transformer_sampler` reads them: ``(n, 2 k_H k_W, h_O, w_O)``, first the
    horizontal ones, then the vertical ones.

    compat: Chainer's arithmetic, step by step (float32 grids added to the offsets, then each
    coordinate divided by the padded size less one, shifted and doubled), on the offsets as
    given: a Variable's go through nodes, an array's are plain array arithmetic, as in Chainer,
    so that the samples and their gradients round as Chainer's.
    """
    _, offset_channels, out_h, out_w = offset.shape
    taps = offset_channels // 2
    xp = backend.get_array_module(offset)
    rows, columns = xp.meshgrid(xp.arange(0, sy * out_h, sy, dtype=numpy.float32),
                                xp.arange(0, sx * out_w, sx, dtype=numpy.float32),
                                indexing="ij")
    tap_columns = xp.tile(xp.arange(kw, dtype=numpy.float32), kh)
    tap_rows = xp.repeat(xp.arange(kh, dtype=numpy.float32), kw)
    u = offset[:, :taps] + columns[None, None] + tap_columns[None, :, None, None]
    v = offset[:, taps:] + rows[None, None] + tap_rows[None, :, None, None]
    u = (u / (w + 2 * pw - 1) - 0.5) * 2
    v = (v / (h + 2 * ph - 1) - 0.5) * 2
    return concat([u, v], axis=1)


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
    sy, sx = _size_tuple(stride, 2, "stride")
    ph, pw = _size_tuple(pad, 2, "pad")
    out_channels, _, kh, kw = W.shape
    n, channels, _, _ = x.shape
    _, offset_channels, out_h, out_w = offset.shape
    taps = kh * kw
    if offset_channels != 2 * taps:
        # compat: Chainer's wording.
        raise ValueError("The shape of the offset does not match the kernel size")
    _, _, h, w = x.shape
    # compat: sampled with spatial_transformer_sampler from the zero-padded input and
    # contracted by one matrix product, as Chainer composes it, so that hooks and computational
    # graphs see its nodes and the results round as its do.
    grid = reshape(_sampling_grid(offset, kh, kw, sy, sx, ph, pw, h, w),
                   (n, 2, taps, out_h * out_w))
    padded = pad_(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), "constant")
    samples = spatial_transformer_sampler(padded, grid)  # (n, c_I, taps, out_h * out_w)
    columns = samples.transpose(0, 3, 1, 2).reshape(n * out_h * out_w, channels * taps)
    # Methods, not functions: an array W is regrouped as an array (no node), as in Chainer.
    weights = W.transpose(1, 2, 3, 0).reshape(channels * taps, out_channels)
    y = matmul(columns, weights)
    y = y.reshape(n, out_h, out_w, out_channels).transpose(0, 3, 1, 2)
    if b is not None:
        y = y + broadcast_to(b[None, :, None, None], y.shape)
    return y
