"""``chainer.utils.conv``: output sizes of (de)convolutions, and ``im2col`` / ``col2im``.

Layer 1: imports only numpy and the backend. The array helpers take NumPy or CuPy arrays alike;
the convolution functions build on the private ``_patches`` view and ``col2im``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils._assertions import AssertRuntimeError


class _EmptyOutputError(AssertRuntimeError):
    """A convolution or im2col whose output would have no entries along some axis.

    Compat: Chainer fails an ``assert`` here; this error is both a RuntimeError and the
    AssertionError that code written against Chainer may catch.
    """


def _int_pair(value: Any) -> tuple[int, int]:
    """``value`` as a pair of ints: a scalar twice, or the first two entries of a sequence.

    How the 2-D window functions (im2col, shift, local and deformable convolution) read their
    size arguments.
    """
    if hasattr(value, "__getitem__"):
        return int(value[0]), int(value[1])
    return int(value), int(value)


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                     d: int = 1) -> int:
    """Output length of a convolution along one spatial axis.

    Args:
        size: Input length.
        k: Kernel length.
        s: Stride.
        p: Padding added at each end.
        cover_all: Whether one more output is added so that every input is covered when the
            stride does not divide the padded input evenly.
        d: Dilation.

    Returns:
        The output length; zero or negative when the kernel does not fit.
    """
    dilated_kernel = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dilated_kernel + s - 1) // s + 1
    return (size + p * 2 - dilated_kernel) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                       d: int = 1) -> int:
    """Output length of a deconvolution (transposed convolution) along one spatial axis.

    The inverse of :func:`get_conv_outsize`: a convolution with the same arguments maps the
    returned length back to ``size``.

    Args:
        size: Input length.
        k: Kernel length.
        s: Stride.
        p: Padding removed at each end.
        cover_all: Whether the matching convolution used ``cover_all``.
        d: Dilation.

    Returns:
        The output length.
    """
    dilated_kernel = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dilated_kernel - s + 1 - 2 * p
    return s * (size - 1) + dilated_kernel - 2 * p


def _as_strided(xp: Any, array: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    if xp is numpy:
        # Read-only: the windows overlap, so a write through the view would hit several cells.
        return numpy.lib.stride_tricks.as_strided(array, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(array, shape, strides)


def _patches(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, out_h: int,
             out_w: int, dy: int = 1, dx: int = 1, pval: Any = 0) -> Any:
    """The ``(n, c, kh, kw, out_h, out_w)`` windows of ``img`` as a strided view, no copy.

    ``img`` is padded first (a copy) when the windows reach outside it: ``ph``/``pw`` on the
    top/left, and at the bottom/right as far as the last window reaches (beyond ``ph``/``pw``
    with ``cover_all``). The view is read-only on NumPy; reshaping it makes the im2col copy.
    """
    xp = backend.get_array_module(img)
    _, _, h, w = img.shape
    bottom = max((out_h - 1) * sy + (kh - 1) * dy + 1 - h - ph, 0)
    right = max((out_w - 1) * sx + (kw - 1) * dx + 1 - w - pw, 0)
    if ph or pw or bottom or right:
        img = xp.pad(img, ((0, 0), (0, 0), (ph, bottom), (pw, right)), mode="constant",
                     constant_values=pval)
    s_n, s_c, s_h, s_w = img.strides
    shape = (img.shape[0], img.shape[1], kh, kw, out_h, out_w)
    strides = (s_n, s_c, s_h * dy, s_w * dx, s_h * sy, s_w * sx)
    return _as_strided(xp, img, shape, strides)


def im2col(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, pval: Any = 0,
           cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
           out_w: int | None = None) -> Any:
    """Gathers the convolution windows of ``img`` into a new array.

    Args:
        img: Images of shape ``(n, c, h, w)``, NumPy or CuPy.
        kh: Kernel height.
        kw: Kernel width.
        sy: Vertical stride.
        sx: Horizontal stride.
        ph: Vertical padding.
        pw: Horizontal padding.
        pval: Value of the padding.
        cover_all: See :func:`get_conv_outsize`.
        dy: Vertical dilation.
        dx: Horizontal dilation.
        out_h: Number of window rows (default: from :func:`get_conv_outsize`).
        out_w: Number of window columns (default: from :func:`get_conv_outsize`).

    Returns:
        An array of shape ``(n, c, kh, kw, out_h, out_w)``: ``col[:, :, i, j, y, x]`` is the
        pixel at ``(y * sy + i * dy - ph, x * sx + j * dx - pw)``.

    Raises:
        RuntimeError: If the output height or width is not positive (also an
            AssertionError, which Chainer raises).
    """
    _, _, h, w = img.shape
    if out_h is None:
        out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    if out_w is None:
        out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if out_h <= 0 or out_w <= 0:
        raise _EmptyOutputError(
            f"output size of im2col must be positive, got {(out_h, out_w)} for an input of "
            f"size {(h, w)}: use a smaller kernel or dilation, or more padding")
    xp = backend.get_array_module(img)
    # A copy even where the window view is contiguous already (one output position, or a
    # 1x1 kernel): the view is read-only and may share the input's memory, and Chainer's
    # im2col always returns a new array that callers write into.
    return xp.array(_patches(img, kh, kw, sy, sx, ph, pw, out_h, out_w, dy, dx, pval),
                    order="C", copy=True)


def col2im(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1,
           dx: int = 1) -> Any:
    """Sums windows back into images: the transpose of :func:`im2col`.

    Args:
        col: Windows of shape ``(n, c, kh, kw, out_h, out_w)``, NumPy or CuPy.
        sy: Vertical stride.
        sx: Horizontal stride.
        ph: Vertical padding (cropped from the result).
        pw: Horizontal padding (cropped from the result).
        h: Height of the result.
        w: Width of the result.
        dy: Vertical dilation.
        dx: Horizontal dilation.

    Returns:
        An array of shape ``(n, c, h, w)`` in ``col``'s dtype: each pixel is the sum of the
        window entries that :func:`im2col` would have read from it (padding dropped).
    """
    xp = backend.get_array_module(col)
    n, c, kh, kw, out_h, out_w = col.shape
    # The padded canvas holds every window, including cover_all windows past the padding.
    height = max(h + 2 * ph, (out_h - 1) * sy + (kh - 1) * dy + 1)
    width = max(w + 2 * pw, (out_w - 1) * sx + (kw - 1) * dx + 1)
    img = xp.zeros((n, c, height, width), dtype=col.dtype)
    # One strided add per kernel offset: within one offset the windows never overlap.
    for i in range(kh):
        top = i * dy
        rows = slice(top, top + sy * (out_h - 1) + 1, sy)
        for j in range(kw):
            left = j * dx
            img[:, :, rows, left:left + sx * (out_w - 1) + 1:sx] += col[:, :, i, j]
    return img[:, :, ph:ph + h, pw:pw + w]


# compat: Chainer's device-specific names; both dispatch on the array's module here.
im2col_cpu = im2col
im2col_gpu = im2col
col2im_cpu = col2im
col2im_gpu = col2im
