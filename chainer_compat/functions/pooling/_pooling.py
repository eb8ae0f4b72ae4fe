"""Window geometry shared by the 2-D and N-d poolings: arguments, output sizes, and the gather and
scatter-add of strided windows, by sum or by max-pooling index. Every loop runs over the kernel
window, never over pixels.

Layer 5: imports backend, type_check and ``utils.conv_nd``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy

from chainer_compat import backend
from chainer_compat.utils import _select, type_check
from chainer_compat.utils._assertions import AssertValueError
from chainer_compat.utils._reduction_order import sum_in_numpy1_order
from chainer_compat.utils.conv import (
    _chainer_empty_output_sentence,
    _check_sizes,
    _size_tuple,
)


def pair(value: Any, name: str) -> tuple[int, int]:
    """``k`` -> ``(k, k)``; a pair (a tuple, list or array, as Chainer takes) as a pair of
    ints.

    Raises:
        TypeError: If an entry is not an integer.
        ValueError: If a sequence has another length than two (also an AssertionError).
    """
    first, second = _size_tuple(value, 2, name)
    return first, second


def check_window(ksize: tuple[int, ...], stride: tuple[int, ...], pad: tuple[int, ...],
                 arguments: tuple[Any, Any, Any]) -> None:
    """Checks a pooling window read from the user's ``(ksize, stride, pad)`` ``arguments``.

    Raises:
        ValueError: If a kernel size or stride is not positive or a padding is negative
            (also the ZeroDivisionError or AssertionError Chainer fails with there, see
            ``utils.conv._check_sizes``).
    """
    _check_sizes("ksize", ksize, arguments[0])
    _check_sizes("stride", stride, arguments[1])
    _check_sizes("pad", pad, arguments[2], minimum=0)


class Window:
    """The kernel size, stride and padding of a 2-D pooling, each as ``(vertical, horizontal)``.

    Args:
        ksize: Kernel size: an int or a pair.
        stride: Stride: an int, a pair, or None for ``ksize``.
        pad: Padding on each side: an int or a pair.

    Attributes:
        ksize: ``(kh, kw)``; with ``stride`` ``(sy, sx)`` and ``pad`` ``(ph, pw)``, the form
            :class:`WindowND` has, so the helpers that take either window can read it.

    Raises:
        TypeError: If an argument is not an int or a pair of ints.
        ValueError: If an argument has more than two entries, a kernel size or stride is not
            positive or a padding is negative (see :func:`check_window`).
    """

    __slots__ = ("kh", "kw", "sy", "sx", "ph", "pw", "ksize", "stride", "pad")

    def __init__(self, ksize: Any, stride: Any, pad: Any) -> None:
        if stride is None:
            stride = ksize
        self.kh, self.kw = pair(ksize, "ksize")
        self.sy, self.sx = pair(stride, "stride")
        self.ph, self.pw = pair(pad, "pad")
        check_window((self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw),
                     (ksize, stride, pad))
        self.ksize = (self.kh, self.kw)
        self.stride = (self.sy, self.sx)
        self.pad = (self.ph, self.pw)

    def arguments(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        """``(ksize, stride, pad)`` as pairs, to build another node over the same windows."""
        return self.ksize, self.stride, self.pad

    @property
    def area(self) -> int:
        """The number of positions in one window."""
        return self.kh * self.kw

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
            f"{_chainer_empty_output_sentence((out_h, out_w))}\n"
            f"output height and width must be positive, got {(out_h, out_w)}\n"
            f"Function: {label}\nInput shape: {x_shape}\n"
            "Use a smaller ksize or a larger pad.")


def expect_pooled_back(x_type: Any, window: Window, outh: int | None, outw: int | None,
                       cover_all: bool) -> None:
    """Type-checks that pooling an ``outh`` by ``outw`` plane gives ``x``'s height and width.

    The check of the unpoolings, whose given output size must pool back to their input; a
    size of None (to be computed by forward) is not checked.
    """
    if outh is not None:
        expected_h = conv_outsize(outh, window.kh, window.sy, window.ph, cover_all)
        type_check.expect(x_type.shape[2] == expected_h)
    if outw is not None:
        expected_w = conv_outsize(outw, window.kw, window.sx, window.pw, cover_all)
        type_check.expect(x_type.shape[3] == expected_w)


def unpooled_size(label: str, x_shape: tuple[int, ...], window: Window, outh: int | None,
                  outw: int | None, cover_all: bool) -> tuple[int, int]:
    """``(outh, outw)`` with each None replaced by the smallest size that pools back to x's.

    Raises:
        OutputSizeError: If a size is negative (see :func:`check_unpooled_size`).
    """
    default_h, default_w = window.unpooled_size(x_shape[2], x_shape[3], cover_all)
    if outh is None:
        outh = default_h
    if outw is None:
        outw = default_w
    check_unpooled_size(label, x_shape, (outh, outw))
    return outh, outw


def check_one_float_4d_input(in_types: Any) -> None:
    """The type check of the 2-D poolings: one float array of four dimensions."""
    type_check.expect(
        in_types.size() == 1,
        in_types[0].dtype.kind == "f",
        in_types[0].ndim == 4,
    )


def sum_windows(x: Any, window: Window, out_h: int, out_w: int) -> Any:
    """The sum of each window of ``x`` (zero padding), of shape ``(n, c, out_h, out_w)``."""
    return sum_windows_nd(x, window, (out_h, out_w))


def scatter_windows(values: Any, window: Window, h: int, w: int, scale: Any = None) -> Any:
    """Adds ``values`` (``(n, c, out_h, out_w)``) to every entry of each window.

    The adjoint of :func:`sum_windows`: returns an ``(n, c, h, w)`` array; entries landing in
    the padding are dropped. ``scale``, when given, multiplies ``values`` first.
    """
    if scale is not None:
        values = values * scale
    return scatter_windows_nd(values, window, (h, w))


class WindowND:
    """The kernel size, stride and padding of an N-d pooling, each a tuple of N ints.

    Args:
        ndim: Number of spatial axes.
        ksize: Kernel size: an int or N ints.
        stride: Stride: an int, N ints, or None for ``ksize``.
        pad: Padding on each side: an int or N ints.

    Raises:
        TypeError: If an argument is not an int or a sequence of ints.
        ValueError: If ``ndim`` is below 1, an argument has the wrong length (also an
            AssertionError, as in Chainer), a kernel size or stride is not positive, or a
            padding is negative (see :func:`check_window`).
    """

    __slots__ = ("ndim", "ksize", "stride", "pad")

    def __init__(self, ndim: int, ksize: Any, stride: Any, pad: Any) -> None:
        if ndim < 1:
            # compat: Chainer's wording.
            raise ValueError("pooling operation requires at least one spatial dimension.")
        self.ndim = ndim
        self.ksize = _size_tuple(ksize, ndim, "ksize")
        self.stride = (self.ksize if stride is None
                       else _size_tuple(stride, ndim, "stride"))
        self.pad = _size_tuple(pad, ndim, "pad")
        check_window(self.ksize, self.stride, self.pad,
                     (ksize, ksize if stride is None else stride, pad))

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

    def pooled_size(self, spatial: tuple[int, ...], cover_all: bool) -> tuple[int, ...]:
        """The spatial output shape of pooling an input of spatial shape ``spatial``."""
        return tuple(conv_outsize(size, k, s, p, cover_all)
                     for size, k, s, p in zip(spatial, self.ksize, self.stride, self.pad))

    def unpooled_size(self, spatial: tuple[int, ...], cover_all: bool) -> tuple[int, ...]:
        """The spatial output shape of unpooling an input of spatial shape ``spatial``."""
        return tuple(deconv_outsize(size, k, s, p, cover_all)
                     for size, k, s, p in zip(spatial, self.ksize, self.stride, self.pad))


# The helpers below take a 2-D ``Window`` as well as a ``WindowND``: they read only ``ksize``,
# ``stride`` and ``pad``, which both have as tuples.
AnyWindow = Window | WindowND

# Every image and channel: the leading part of each window-position index.
_ALL_ALL = (slice(None), slice(None))


def position_slices(window: AnyWindow,
                    outs: tuple[int, ...]) -> Iterator[tuple[int, tuple[slice, ...]]]:
    """``(index, where)`` for each window position: ``where`` indexes the entries at that
    position of every one of ``outs`` windows in padded input, and ``index`` is the position's
    row-major flat offset (for a 2-D window, ``ky * kw + kx``), which max pooling records."""
    # One slice per axis and offset, combined per position: pooling loops run this per call.
    per_axis = [[slice(i, i + s * (o - 1) + 1, s) for i in range(k)]
                for k, s, o in zip(window.ksize, window.stride, outs)]
    return enumerate(_ALL_ALL + where for where in itertools.product(*per_axis))


def canvas_size(window: AnyWindow, spatial: tuple[int, ...],
                outs: tuple[int, ...]) -> tuple[int, ...]:
    """The padded spatial shape that holds ``spatial`` and every one of ``outs`` windows."""
    return tuple(max(p + size, s * (o - 1) + k)
                 for size, o, k, s, p in zip(spatial, outs, window.ksize, window.stride,
                                             window.pad))


def check_unpooled_size(label: str, x_shape: tuple[int, ...], outs: tuple[int, ...]) -> None:
    """Raises :class:`OutputSizeError` if an unpooled size is negative.

    compat: an unpooling to size 0 (a padding that takes every entry) gives an empty output,
    as in Chainer.
    """
    if any(out < 0 for out in outs):
        raise OutputSizeError(
            f"output sizes must not be negative, got {outs}\n"
            f"Function: {label}\nInput shape: {x_shape}\n"
            "Use a larger ksize or a smaller pad.")


def check_output_size_nd(label: str, x_shape: tuple[int, ...], outs: tuple[int, ...]) -> None:
    """Raises :class:`OutputSizeError` unless every output size is positive."""
    if any(out <= 0 for out in outs):
        raise OutputSizeError(
            "Output sizes should be positive.\n"
            f"output sizes must be positive, got {outs}\n"
            f"Function: {label}\nInput shape: {x_shape}\n"
            "Use a smaller ksize or a larger pad.")


def pad_volumes(x: Any, window: AnyWindow, outs: tuple[int, ...], value: float) -> Any:
    """``x`` padded with ``value`` so that ``outs`` windows fit, the first at ``-pad``."""
    xp = backend.get_array_module(x)
    spatial = x.shape[2:]
    canvas = canvas_size(window, spatial, outs)
    after = tuple(c - p - size for c, p, size in zip(canvas, window.pad, spatial))
    if not any(window.pad) and not any(after):
        return x
    widths = ((0, 0), (0, 0)) + tuple(zip(window.pad, after))
    return xp.pad(x, widths, mode="constant", constant_values=value)


def crop_padding(padded: Any, window: AnyWindow, spatial: tuple[int, ...]) -> Any:
    """The entries of ``padded`` that are not padding, as a contiguous array."""
    xp = backend.get_array_module(padded)
    index = (slice(None), slice(None)) + tuple(
        slice(p, p + size) for p, size in zip(window.pad, spatial))
    return xp.ascontiguousarray(padded[index])


def widened_for_sums(x: Any) -> Any:
    """``x`` in float32 if it is float16, else ``x`` itself: the array to average windows of.

    compat: Chainer averages float16 windows in float32, so each mean is rounded once; float16
    sums drift by an ulp or more.
    """
    return x.astype(numpy.float32) if x.dtype == numpy.float16 else x


def sum_windows_nd(x: Any, window: AnyWindow, outs: tuple[int, ...]) -> Any:
    """The sum of each window of ``x`` (zero padding), of shape ``(n, c, *outs)``."""
    padded = pad_volumes(x, window, outs, 0)
    if all(size == 1 for size in outs):
        # compat: one window per plane (a global pooling, say). Chainer sums its im2col copy,
        # where each window is one contiguous run, and NumPy adds a run pairwise; the loop
        # below adds the positions one after another, which rounds differently for large
        # windows (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
        xp = backend.get_array_module(x)
        region = padded[(slice(None), slice(None)) + tuple(slice(0, k) for k in window.ksize)]
        runs = xp.ascontiguousarray(region).reshape(region.shape[:2] + (-1,))
        # A window over 8,192 entries is added in NumPy 1's order (NOTE [NumPy 1 sum order]).
        return sum_in_numpy1_order(runs, axis=2).reshape(region.shape[:2] + outs)
    total = None
    for _, where in position_slices(window, outs):
        part = padded[where]
        if total is None:
            total = part.copy()
        else:
            total += part  # in place: the same sums, without a new array per position
    return total


def scatter_windows_nd(values: Any, window: AnyWindow, spatial: tuple[int, ...]) -> Any:
    """Adds ``values`` (``(n, c, *outs)``) to every entry of each window: the adjoint of
    :func:`sum_windows_nd`. Returns ``(n, c, *spatial)``; entries in the padding are dropped.
    """
    xp = backend.get_array_module(values)
    outs = tuple(values.shape[2:])
    canvas = canvas_size(window, spatial, outs)
    padded = xp.zeros(values.shape[:2] + canvas, dtype=values.dtype)
    for _, where in position_slices(window, outs):
        padded[where] += values
    return crop_padding(padded, window, spatial)


def max_of_windows(x: Any, window: AnyWindow, outs: tuple[int, ...]) -> tuple[Any, Any]:
    """The maximum of each window of ``x`` and its position there: max pooling's forward.

    Padding never wins (it reads ``-inf``). Returns ``(y, indexes)``, both ``(n, c, *outs)``;
    an index is the position's place in :func:`position_slices`. See NOTE [window maxima].
    """
    # NOTE [window maxima]
    # Each window position is one strided view of the padded input, of the output's shape, so
    # max pooling is a few elementwise passes per position. Stacking the views and reducing
    # across them, as Chainer's im2col does, copies the input once more, and argmax then
    # transposes the stack and scans windows of a few entries one call at a time.
    # - The maximum accumulates with ``maximum`` in position order, as the reduction across
    #   the stack does, and has the same value. Which of two zeros of opposite sign (or two
    #   NaNs) it keeps depends on which of NumPy's loops runs, so a window holding both zeros
    #   may give the other zero than Chainer's; the indexes, and so the gradients, agree.
    # - Its position is the first one holding it, argmax's choice: the positions are visited
    #   last to first, each overwriting the index where it holds the maximum (a NaN maximum is
    #   held by every NaN, so the first NaN wins).
    # - Overwriting under a random mask is branchy (``putmask`` and ``where`` mispredict about
    #   every other entry: ten to thirty times slower), so the masks are applied by arithmetic
    #   (:func:`_overwrite`, and ``select`` of NOTE [branch-free selection]) instead, on
    #   indexes in the narrowest unsigned type.
    xp = backend.get_array_module(x)
    padded = pad_volumes(x, window, outs, -float("inf"))
    positions = list(position_slices(window, outs))
    y = padded[positions[0][1]].copy()
    for _, where in positions[1:]:
        xp.maximum(y, padded[where], out=y)
    nan_maxima = xp.isnan(y)
    # On a GPU, asking whether any maximum is NaN would wait for the device: assume one is.
    any_nan = xp is not numpy or bool(nan_maxima.any())
    narrow = numpy.min_scalar_type(len(positions) - 1)
    indexes = xp.full(y.shape, len(positions) - 1, dtype=narrow)
    scratch = xp.empty_like(indexes)
    for index, where in reversed(positions[:-1]):
        part = padded[where]
        holds = part == y
        if any_nan:
            holds |= nan_maxima & xp.isnan(part)
        _overwrite(indexes, holds, index, scratch)
    return y, indexes.astype(numpy.intp)


def _overwrite(target: Any, mask: Any, value: int, scratch: Any) -> None:
    """``target[mask] = value`` for an unsigned integer ``target``, without branching.

    ``target + (value - target) * mask`` wraps around the type's range, exactly (NOTE [window
    maxima]); ``scratch`` is an array like ``target`` to compute in.
    """
    xp = backend.get_array_module(target)
    xp.subtract(target.dtype.type(value), target, out=scratch)
    xp.multiply(scratch, mask, out=scratch)
    xp.add(target, scratch, out=target)


def scatter_at_indexes(values: Any, indexes: Any, window: AnyWindow,
                       shape: tuple[int, ...]) -> Any:
    """Adds each entry of ``values`` to the entry of its window at position ``indexes``.

    The gradient of max pooling (and upsampling's forward): returns an array of ``shape``,
    zero where no window's chosen position lands; entries in the padding are dropped.
    """
    xp = backend.get_array_module(values)
    spatial = tuple(shape[2:])
    outs = tuple(values.shape[2:])
    padded = xp.zeros(tuple(shape[:2]) + canvas_size(window, spatial, outs), dtype=values.dtype)
    for index, where in position_slices(window, outs):
        # Adding +0 where the window's maximum is elsewhere leaves every sum as Chainer's
        # col2im leaves it (it adds its zeros too).
        padded[where] += _select.select(indexes == index, values)
    return crop_padding(padded, window, spatial)


def gather_at_indexes(x: Any, indexes: Any, window: AnyWindow) -> Any:
    """The entry of each window of ``x`` (zero padding) at position ``indexes``: the adjoint of
    :func:`scatter_at_indexes`, of ``indexes``' shape."""
    xp = backend.get_array_module(x)
    outs = tuple(indexes.shape[2:])
    padded = pad_volumes(x, window, outs, 0)
    if x.dtype.itemsize > 8:  # more than 8 bytes (a long double): no integer type of its size
        y = xp.zeros(indexes.shape, dtype=x.dtype)
        for index, where in position_slices(window, outs):
            y = xp.where(indexes == index, padded[where], y)
        return y
    bits = _select.bits_type(x.dtype)
    # At most one position is selected per entry, so or-ing the selected bits picks it (and
    # leaves +0 where none is), -0 included, which a sum would turn into +0.
    y = xp.zeros(indexes.shape, dtype=bits)
    for index, where in position_slices(window, outs):
        xp.bitwise_or(y, _select.select(indexes == index, padded[where]).view(bits), out=y)
    return y.view(x.dtype)
