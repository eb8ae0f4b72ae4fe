"""``chainer.utils.conv_nd``: ``im2col`` / ``col2im`` over any number of spatial axes.

Layer 1: imports only the backend and ``utils.conv``. The N-d convolutions and their
gradients build on the private ``_patches`` view and on ``col2im_nd``.
"""

from __future__ import annotations

import itertools
from typing import Any

from chainer_compat import backend
from chainer_compat.utils.conv import (
    _as_strided,
    _EmptyOutputError,
    _SizeLengthError,
    get_conv_outsize,
)


def as_tuple(x: Any, n: int, name: str = "a size argument") -> tuple[Any, ...]:
    """``x`` as a tuple of ``n`` entries: a sequence is converted, a scalar repeated.

    Args:
        x: A scalar or a sequence.
        n: Number of entries wanted.
        name: What the error calls ``x`` (the argument's name, where the caller knows it).

    Raises:
        ValueError: If ``x`` is a sequence whose length is not ``n`` (also an
            AssertionError, which Chainer raises).
    """
    if hasattr(x, "__getitem__"):
        if len(x) != n:
            raise _SizeLengthError(
                f"{name} must have {n} entries, one per spatial axis, got "
                f"{tuple(x)!r}")
        return tuple(x)
    return (x,) * n


def _check_spatial_ndim(x: Any, expected: int) -> None:
    """Checks that ``x`` has ``expected`` axes after the channel axis (the 1-D, 2-D and 3-D
    forms of the N-d functions call it first).

    Raises:
        ValueError: If it has not, in Chainer's wording.
    """
    ndim = len(x.shape[2:])
    if ndim != expected:
        # compat: Chainer's wording, which users may match on.
        raise ValueError(
            "The number of dimensions under channel dimension of the input 'x' should be "
            f"{expected}. But the actual ndim was {ndim}.")


def _patches(img: Any, ksize: tuple[int, ...], stride: tuple[int, ...], pad: tuple[int, ...],
             outs: tuple[int, ...], dilate: tuple[int, ...], pval: Any = 0) -> Any:
    """The ``(n, c, *ksize, *outs)`` windows of ``img`` as a strided view, no copy.

    ``img`` is padded first (a copy) when the windows reach outside it: ``pad`` before each
    axis, and after it as far as the last window reaches (beyond ``pad`` with ``cover_all``).
    """
    xp = backend.get_array_module(img)
    spatial = img.shape[2:]
    after = [max((o - 1) * s + (k - 1) * d + 1 - size - p, 0)
             for size, k, s, p, o, d in zip(spatial, ksize, stride, pad, outs, dilate)]
    if any(pad) or any(after):
        widths = ((0, 0), (0, 0)) + tuple(zip(pad, after))
        img = xp.pad(img, widths, mode="constant", constant_values=pval)
    strides = img.strides
    axis_strides = strides[2:]
    view_strides = (strides[0], strides[1],
                    *(st * d for st, d in zip(axis_strides, dilate)),
                    *(st * s for st, s in zip(axis_strides, stride)))
    shape = (img.shape[0], img.shape[1], *ksize, *outs)
    return _as_strided(xp, img, shape, view_strides)


def _output_sizes(spatial: tuple[int, ...], ksize: tuple[int, ...], stride: tuple[int, ...],
                  pad: tuple[int, ...], cover_all: bool, dilate: tuple[int, ...]
                  ) -> tuple[int, ...]:
    return tuple(get_conv_outsize(size, k, s, p, cover_all, d)
                 for size, k, s, p, d in zip(spatial, ksize, stride, pad, dilate))


def im2col_nd_cpu(img: Any, ksize: Any, stride: Any, pad: Any, pval: Any = 0,
                  cover_all: bool = False, dilate: Any = 1) -> Any:
    """Gathers the convolution windows of ``img`` into a new array, padding with ``pval``.

    Chainer's CPU name, the one with a ``pval`` parameter (fifth, before ``cover_all``); it
    accepts CuPy arrays too. :func:`im2col_nd` and :func:`im2col_nd_gpu` take no ``pval``.

    Args:
        img: Array of shape ``(n, c, d_1, ..., d_N)``, NumPy or CuPy.
        ksize: Kernel size per spatial axis (a sequence of N ints).
        stride: Stride per spatial axis.
        pad: Padding at both ends of each spatial axis.
        pval: Value of the padding.
        cover_all: See :func:`chainer_compat.utils.conv.get_conv_outsize`.
        dilate: Dilation: an int or one per spatial axis.

    Returns:
        An array of shape ``(n, c, k_1, ..., k_N, out_1, ..., out_N)``.

    Raises:
        ValueError: If the arguments' lengths do not match the number of spatial axes.
        RuntimeError: If an output size is not positive (also an AssertionError, which
            Chainer raises).
    """
    ndim = img.ndim - 2
    ksize, stride, pad = (as_tuple(ksize, ndim), as_tuple(stride, ndim),
                          as_tuple(pad, ndim))
    dilate = as_tuple(dilate, ndim)
    outs = _output_sizes(img.shape[2:], ksize, stride, pad, cover_all, dilate)
    if any(out <= 0 for out in outs):
        raise _EmptyOutputError(
            "Output sizes should be positive.\n"
            f"output size of im2col_nd must be positive, got {outs} for an input of size "
            f"{img.shape[2:]}: use a smaller kernel or dilation, or more padding")
    xp = backend.get_array_module(img)
    # Always a new, writable array, as Chainer's (see im2col_cpu).
    return xp.array(_patches(img, ksize, stride, pad, outs, dilate, pval), order="C", copy=True)


def col2im_nd(col: Any, stride: Any, pad: Any, dims: Any, dilate: Any = 1) -> Any:
    """Sums windows back into an array: the transpose of :func:`im2col_nd`.

    Args:
        col: Windows of shape ``(n, c, k_1, ..., k_N, out_1, ..., out_N)``.
        stride: Stride per spatial axis.
        pad: Padding per spatial axis (cropped from the result).
        dims: Spatial shape ``(d_1, ..., d_N)`` of the result.
        dilate: Dilation: an int or one per spatial axis.

    Returns:
        An array of shape ``(n, c, d_1, ..., d_N)`` in ``col``'s dtype.
    """
    xp = backend.get_array_module(col)
    ndim = (col.ndim - 2) // 2
    stride, pad, dilate = as_tuple(stride, ndim), as_tuple(pad, ndim), as_tuple(dilate, ndim)
    dims = as_tuple(dims, ndim, "dims")
    ksize = col.shape[2:2 + ndim]
    outs = col.shape[2 + ndim:]
    # The padded canvas holds every window, including cover_all windows past the padding.
    canvas_shape = tuple(max(size + 2 * p, (o - 1) * s + (k - 1) * d + 1)
                         for size, p, o, s, k, d in zip(dims, pad, outs, stride, ksize, dilate))
    img = xp.zeros(col.shape[:2] + canvas_shape, dtype=col.dtype)
    # One strided add per kernel offset: within one offset the windows never overlap.
    for offset in itertools.product(*(range(k) for k in ksize)):
        target = tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                       for i, d, s, o in zip(offset, dilate, stride, outs))
        img[(slice(None), slice(None)) + target] += col[(slice(None), slice(None)) + offset]
    crop = tuple(slice(p, p + size) for p, size in zip(pad, dims))
    return img[(slice(None), slice(None)) + crop]


def im2col_nd(img: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool = False,
              dilate: Any = 1) -> Any:
    """:func:`im2col_nd_cpu` with zero padding, NumPy or CuPy.

    Its fifth positional parameter is ``cover_all``, as in Chainer (only ``im2col_nd_cpu``
    has ``pval``).
    """
    return im2col_nd_cpu(img, ksize, stride, pad, 0, cover_all, dilate)


# compat: Chainer's GPU name, with im2col_nd's parameters; it dispatches on the array's module.
im2col_nd_gpu = im2col_nd


# compat: Chainer's device-specific names; both dispatch on the array's module here.
col2im_nd_cpu = col2im_nd
col2im_nd_gpu = col2im_nd
