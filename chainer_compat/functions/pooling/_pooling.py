"""Window geometry shared by the 2-D and N-d poolings: arguments, output sizes, and the gather and
scatter-add of strided windows. Every loop runs over the kernel window, never over pixels.

Layer 5: imports backend, type_check and ``utils.conv_nd``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from chainer_compat import backend
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import AssertValueError
from chainer_compat.utils.conv_nd import as_tuple


def pair(value: Any, name: str) -> tuple[int, int]:
    """``k`` -> ``(k, k)``; a pair is returned as a pair of ints."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


class Window:
    """The kernel size, stride and padding of a 2-D pooling, each as ``(vertical, horizontal)``.

    Args:
        ksize: Kernel size: an int or a pair.
        stride: Stride: an int, a pair, or None for ``ksize``.
        pad: Padding on each side: an int or a pair.

    Raises:
        ValueError: If a kernel size or stride is not positive or a padding is negative.
    """

    __slots__ = ("kh", "kw", "sy", "sx", "ph", "pw")

    def __init__(self, ksize: Any, stride: Any, pad: Any) -> None:
        self.kh, self.kw = pair(ksize, "ksize")
        self.sy, self.sx = pair(ksize if stride is None else stride, "stride")
        self.ph, self.pw = pair(pad, "pad")
        # compat: Chainer fails later with ZeroDivisionError; a ValueError says which argument.
        if min(self.kh, self.kw) <= 0:
            raise ValueError(f"ksize must be positive, got {(self.kh, self.kw)}")
        if min(self.sy, self.sx) <= 0:
            raise ValueError(f"stride must be positive, got {(self.sy, self.sx)}")
        if min(self.ph, self.pw) < 0:
            raise ValueError(f"pad must not be negative, got {(self.ph, self.pw)}")

    def arguments(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        """``(ksize, stride, pad)`` as pairs, to build another node over the same windows."""
        return (self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw)

    @property
    def area(self) -> int:
        """The number of positions in one window."""
        return self.kh * self.kw

    def positions(self) -> Iterator[tuple[int, int, int]]:
        """``(index, ky, kx)`` for each window position, index ``ky * kw + kx``."""
        for ky in range(self.kh):
            for kx in range(self.kw):
                yield ky * self.kw + kx, ky, kx

    def pooled_size(self, h: int, w: int, cover_all: bool) -> tuple[int, int]:
        """The output height and width of pooling an ``h`` by ``w`` plane."""
        return (conv_outsize(h, self.kh, self.sy, self.ph, cover_all),
                conv_outsize(w, self.kw, self.sx, self.pw, cover_all))

    def unpooled_size(self, h: int, w: int, cover_all: bool) -> tuple[int, int]:
        """The output height and width of unpooling an ``h`` by ``w`` plane."""
        return (deconv_outsize(h, self.kh, self.sy, self.ph, cover_all),
                deconv_outsize(w, self.kw, self.sx, self.pw, cover_all))


def conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool) -> int:
    """How many windows of size ``k`` and stride ``s`` fit a length ``size`` padded by ``p``.

    With ``cover_all``, a last window overhanging the end is added so every entry is covered.
    """
    if cover_all:
        return (size + p * 2 - k + s - 1) // s + 1
    return (size + p * 2 - k) // s + 1


def deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool) -> int:
    """The length whose pooling (see :func:`conv_outsize`) has ``size`` windows."""
    if cover_all:
        return s * (size - 1) + k - s + 1 - 2 * p
    return s * (size - 1) + k - 2 * p


class OutputSizeError(AssertValueError):
    """A pooling whose output would be empty.

    Compat: Chainer fails an ``assert`` here; this error is both a ValueError and the
    AssertionError that code written against Chainer may catch.
    """


def check_output_size(label: str, x_shape: tuple[int, ...], out_h: int, out_w: int) -> None:
    """Raises :class:`OutputSizeError` unless both output sizes are positive."""
    if out_h <= 0 or out_w <= 0:
        raise OutputSizeError(
            f"output height and width must be positive, got {(out_h, out_w)}\n"
            f"Function: {label}\nInput shape: {x_shape}\n"
            "Use a smaller ksize or a larger pad.")


def check_one_float_4d_input(in_types: Any) -> None:
    """The type check of the 2-D poolings: one float array of four dimensions."""
    type_check.expect(
        in_types.size() == 1,
        in_types[0].dtype.kind == "f",
        in_types[0].ndim == 4,
    )


def pad_planes(x: Any, window: Window, out_h: int, out_w: int, value: float) -> Any:
    """``x`` padded so that ``out_h`` by ``out_w`` windows fit, the first at ``(-ph, -pw)``.

    The padding is ``value``; only as much as the windows reach is added after the end.
    """
    xp = backend.get_array_module(x)
    h, w = x.shape[2:]
    bottom = max(0, window.sy * (out_h - 1) + window.kh - window.ph - h)
    right = max(0, window.sx * (out_w - 1) + window.kw - window.pw - w)
    if window.ph == 0 and window.pw == 0 and bottom == 0 and right == 0:
        return x
    widths = ((0, 0), (0, 0), (window.ph, bottom), (window.pw, right))
    return xp.pad(x, widths, mode="constant", constant_values=value)


def window_slice(ky: int, kx: int, window: Window, out_h: int,
                 out_w: int) -> tuple[slice, slice, slice, slice]:
    """The index of the entries at position ``(ky, kx)`` of every window, in padded planes."""
    return (slice(None), slice(None),
            slice(ky, ky + window.sy * (out_h - 1) + 1, window.sy),
            slice(kx, kx + window.sx * (out_w - 1) + 1, window.sx))


def sum_windows(x: Any, window: Window, out_h: int, out_w: int) -> Any:
    """The sum of each window of ``x`` (zero padding), of shape ``(n, c, out_h, out_w)``."""
    padded = pad_planes(x, window, out_h, out_w, 0)
    total = None
    for _, ky, kx in window.positions():
        part = padded[window_slice(ky, kx, window, out_h, out_w)]
        total = part.copy() if total is None else total + part
    return total


def scatter_windows(values: Any, window: Window, h: int, w: int, scale: Any = None) -> Any:
    """Adds ``values`` (``(n, c, out_h, out_w)``) to every entry of each window.

    The adjoint of :func:`sum_windows`: returns an ``(n, c, h, w)`` array; entries landing in
    the padding are dropped. ``scale``, when given, multiplies ``values`` first.
    """
    xp = backend.get_array_module(values)
    if scale is not None:
        values = values * scale
    n, c, out_h, out_w = values.shape
    height = max(window.ph + h, window.sy * (out_h - 1) + window.kh)
    width = max(window.pw + w, window.sx * (out_w - 1) + window.kw)
    padded = xp.zeros((n, c, height, width), dtype=values.dtype)
    for _, ky, kx in window.positions():
        padded[window_slice(ky, kx, window, out_h, out_w)] += values
    return xp.ascontiguousarray(padded[:, :, window.ph:window.ph + h, window.pw:window.pw + w])


class WindowND:
    """The kernel size, stride and padding of an N-d pooling, each a tuple of N ints.

    Args:
        ndim: Number of spatial axes.
        ksize: Kernel size: an int or N ints.
        stride: Stride: an int, N ints, or None for ``ksize``.
        pad: Padding on each side: an int or N ints.

    Raises:
        ValueError: If ``ndim`` is below 1, an argument has the wrong length, a kernel size or
            stride is not positive, or a padding is negative.
    """

    __slots__ = ("ndim", "ksize", "stride", "pad")

    def __init__(self, ndim: int, ksize: Any, stride: Any, pad: Any) -> None:
        if ndim < 1:
            # compat: Chainer's wording.
            raise ValueError("pooling operation requires at least one spatial dimension.")
        self.ndim = ndim
        self.ksize = tuple(int(k) for k in as_tuple(ksize, ndim))
        self.stride = tuple(int(s) for s in as_tuple(ksize if stride is None else stride, ndim))
        self.pad = tuple(int(p) for p in as_tuple(pad, ndim))
        if min(self.ksize) <= 0:
            raise ValueError(f"ksize must be positive, got {self.ksize}")
        if min(self.stride) <= 0:
            raise ValueError(f"stride must be positive, got {self.stride}")
        if min(self.pad) < 0:
            raise ValueError(f"pad must not be negative, got {self.pad}")

    def arguments(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """``(ksize, stride, pad)``, to build another node over the same windows."""
        return self.ksize, self.stride, self.pad

    @property
    def area(self) -> int:
        """The number of positions in one window."""
        total = 1
        for k in self.ksize:
            total *= k
        return total

    def positions(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """``(index, offset)`` for each window position, index the row-major flat offset."""
        return enumerate(itertools.product(*(range(k) for k in self.ksize)))

    def pooled_size(self, spatial: tuple[int, ...], cover_all: bool) -> tuple[int, ...]:
        """The spatial output shape of pooling an input of spatial shape ``spatial``."""
        return tuple(conv_outsize(size, k, s, p, cover_all)
                     for size, k, s, p in zip(spatial, self.ksize, self.stride, self.pad))

    def unpooled_size(self, spatial: tuple[int, ...], cover_all: bool) -> tuple[int, ...]:
        """The spatial output shape of unpooling an input of spatial shape ``spatial``."""
        return tuple(deconv_outsize(size, k, s, p, cover_all)
                     for size, k, s, p in zip(spatial, self.ksize, self.stride, self.pad))

    def canvas_size(self, spatial: tuple[int, ...], outs: tuple[int, ...]) -> tuple[int, ...]:
        """The padded spatial shape that holds ``spatial`` and every one of ``outs`` windows."""
        return tuple(max(p + size, s * (o - 1) + k)
                     for size, o, k, s, p in zip(spatial, outs, self.ksize, self.stride,
                                                 self.pad))


def check_output_size_nd(label: str, x_shape: tuple[int, ...], outs: tuple[int, ...]) -> None:
    """Raises :class:`OutputSizeError` unless every output size is positive."""
    if any(out <= 0 for out in outs):
        raise OutputSizeError(
            f"output sizes must be positive, got {outs}\n"
            f"Function: {label}\nInput shape: {x_shape}\n"
            "Use a smaller ksize or a larger pad.")


def pad_volumes(x: Any, window: WindowND, outs: tuple[int, ...], value: float) -> Any:
    """``x`` padded with ``value`` so that ``outs`` windows fit, the first at ``-pad``."""
    xp = backend.get_array_module(x)
    spatial = x.shape[2:]
    canvas = window.canvas_size(spatial, outs)
    after = tuple(c - p - size for c, p, size in zip(canvas, window.pad, spatial))
    if not any(window.pad) and not any(after):
        return x
    widths = ((0, 0), (0, 0)) + tuple(zip(window.pad, after))
    return xp.pad(x, widths, mode="constant", constant_values=value)


def window_slice_nd(offset: tuple[int, ...], window: WindowND,
                    outs: tuple[int, ...]) -> tuple[slice, ...]:
    """The index of the entries at ``offset`` of every window, in padded volumes."""
    return (slice(None), slice(None)) + tuple(
        slice(i, i + s * (o - 1) + 1, s) for i, s, o in zip(offset, window.stride, outs))


def crop_padding(padded: Any, window: WindowND, spatial: tuple[int, ...]) -> Any:
    """The entries of ``padded`` that are not padding, as a contiguous array."""
    xp = backend.get_array_module(padded)
    index = (slice(None), slice(None)) + tuple(
        slice(p, p + size) for p, size in zip(window.pad, spatial))
    return xp.ascontiguousarray(padded[index])


def sum_windows_nd(x: Any, window: WindowND, outs: tuple[int, ...]) -> Any:
    """The sum of each window of ``x`` (zero padding), of shape ``(n, c, *outs)``."""
    padded = pad_volumes(x, window, outs, 0)
    total = None
    for _, offset in window.positions():
        part = padded[window_slice_nd(offset, window, outs)]
        total = part.copy() if total is None else total + part
    return total


def scatter_windows_nd(values: Any, window: WindowND, spatial: tuple[int, ...]) -> Any:
    """Adds ``values`` (``(n, c, *outs)``) to every entry of each window: the adjoint of
    :func:`sum_windows_nd`. Returns ``(n, c, *spatial)``; entries in the padding are dropped.
    """
    xp = backend.get_array_module(values)
    outs = tuple(values.shape[2:])
    canvas = window.canvas_size(spatial, outs)
    padded = xp.zeros(values.shape[:2] + canvas, dtype=values.dtype)
    for _, offset in window.positions():
        padded[window_slice_nd(offset, window, outs)] += values
    return crop_padding(padded, window, spatial)
