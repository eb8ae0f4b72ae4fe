"""``chainer.utils.conv``: output sizes of (de)convolutions, and ``im2col`` / ``col2im``.

Layer 1: imports only numpy and the backend. The array helpers take NumPy or CuPy arrays alike;
the convolution functions build on the private ``_patches`` view and ``col2im``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils._assertions import (
    AssertRuntimeError,
    AssertValueError,
    ZeroDivisionValueError,
)


class _EmptyOutputError(AssertRuntimeError):
    """A convolution or im2col whose output would have no entries along some axis.

    Compat: Chainer fails an ``assert`` here; this error is both a RuntimeError and the
    AssertionError that code written against Chainer may catch.
    """


class _SizeLengthError(AssertValueError):
    """A size argument with the wrong number of entries.

    Compat: Chainer fails an ``assert`` (the N-d functions) or an unpacking (the 2-D ones)
    here; this error is both the ValueError and the AssertionError of those.
    """


def _as_size(value: Any, name: str, given: Any, expected: str = "an int",
             allow_none: bool = False) -> Any:
    """One entry of the size argument ``given`` as an int: an int, a bool or a NumPy integer
    (or None, where ``allow_none``); ``expected`` says what ``given`` may be.

    Raises:
        TypeError: For any other entry, a float or a str say (Chainer's type: its arithmetic,
            or NumPy's, fails on them).
    """
    if type(value) is int or (value is None and allow_none):
        return value
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, numpy.floating) and value.is_integer():
        # compat: Chainer's 2-D average pooling, unpooling, upsampling and ROI pooling compute
        # with a NumPy float size; an integral one reads as that int.
        return int(value)
    kind = type(value).__name__ if value is given else f"an entry of type {type(value).__name__}"
    raise TypeError(f"{name} must be {expected}, got {given!r} ({kind}): pass integers")


def _ints(count: int) -> str:
    return "an int or a sequence of " + ("one int" if count == 1 else f"{count} ints")


def _size_tuple(value: Any, count: int, name: str, allow_none: bool = False) -> tuple[Any, ...]:
    """The size argument ``value`` as ``count`` ints: an int repeated, or ``count`` ints.

    How the (de)convolutions, poolings and window functions read their ``ksize``, ``stride``,
    ``pad``, ``dilate`` and ``outsize``. A sequence of another length is an error even where
    Chainer would read its first entries. With ``allow_none``, an entry may be None (an
    ``outsize`` entry to be computed).

    Raises:
        ValueError: If a sequence (a str too) has another length (also an AssertionError,
            which Chainer's N-d functions raise).
        TypeError: If an entry is not an integer (see :func:`_as_size`).
    """
    if type(value) is int:
        return (value,) * count
    if (type(value) is tuple and len(value) == count
            and all(type(entry) is int for entry in value)):
        return value
    if hasattr(value, "__len__") and getattr(value, "ndim", 1) != 0:
        if len(value) != count:
            raise _SizeLengthError(
                f"{name} must be {_ints(count)} (one per spatial axis), got {value!r}")
        expected = _ints(count)
        return tuple(_as_size(entry, name, value, expected, allow_none) for entry in value)
    return (_as_size(value, name, value, _ints(count), allow_none),) * count


def _check_sizes(name: str, sizes: tuple[int, ...], given: Any, minimum: int = 1,
                 zero_error: type[Exception] = ZeroDivisionValueError,
                 negative_error: type[Exception] = AssertValueError) -> None:
    """Checks that each of ``sizes`` (read from the argument ``given``) is at least ``minimum``
    (1 or 0).

    Compat: where Chainer computes with such a size it fails with a ZeroDivisionError on a
    zero and with an AssertionError or a ValueError on a negative one; the default errors are
    each a ValueError and that type (NOTE [bare asserts] in ``utils/_assertions.py``).

    Raises:
        ValueError: ``zero_error`` for a zero below ``minimum``, else ``negative_error``.
    """
    for size in sizes:
        if size < minimum:
            error = zero_error if size == 0 else negative_error
            rule = "positive" if minimum == 1 else "non-negative"
            raise error(f"{name} must be {rule}, got {given!r}")


def _chainer_empty_output_sentence(outs: tuple[int, ...], transposed: bool = False,
                                   per_axis: bool = True) -> str:
    """The sentence Chainer's output size check says for the output sizes ``outs``, one of
    them not positive; our errors start with it, as users may match on it.

    Chainer's 2-D functions name the axis (``per_axis``), its N-d ones do not.
    """
    if not per_axis or len(outs) != 2:
        return "Output sizes should be positive."
    axis = "Height" if outs[0] <= 0 else "Width"
    return f"{axis} in the output {'must' if transposed else 'should'} be positive."


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


def im2col_cpu(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, pval: Any = 0,
               cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
               out_w: int | None = None) -> Any:
    """Gathers the convolution windows of ``img`` into a new array, padding with ``pval``.

    Chainer's CPU name, the one with a ``pval`` parameter (eighth, before ``cover_all``); it
    accepts CuPy arrays too. :func:`im2col` and :func:`im2col_gpu` take no ``pval``.

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
        ValueError: If a stride is not positive or a dilation is negative (a zero stride is
            also the ZeroDivisionError, and a negative one the AssertionError, Chainer raises).
        RuntimeError: If the output height or width is not positive (also an
            AssertionError, which Chainer raises).
    """
    # A window stepping backwards or a tap before its window's corner would read outside img.
    _check_sizes("stride of im2col", (sy, sx), (sy, sx))
    _check_sizes("dilate of im2col", (dy, dx), (dy, dx), minimum=0)
    _, _, h, w = img.shape
    if out_h is None:
        out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    if out_w is None:
        out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if out_h <= 0 or out_w <= 0:
        raise _EmptyOutputError(
            f"{_chainer_empty_output_sentence((out_h, out_w))}\n"
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


def im2col(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int,
           cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
           out_w: int | None = None) -> Any:
    """:func:`im2col_cpu` with zero padding, NumPy or CuPy.

    Its eighth positional parameter is ``cover_all``, as in Chainer (only ``im2col_cpu``
    has ``pval``).
    """
    return im2col_cpu(img, kh, kw, sy, sx, ph, pw, 0, cover_all, dy, dx, out_h, out_w)


# compat: Chainer's GPU name, with im2col's parameters; it dispatches on the array's module.
im2col_gpu = im2col

# compat: Chainer's device-specific names; both dispatch on the array's module here.
col2im_cpu = col2im
col2im_gpu = col2im
