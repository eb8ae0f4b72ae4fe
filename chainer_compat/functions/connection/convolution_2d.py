"""``convolution_2d``: 2-D convolution (cross-correlation) with stride, padding, dilation, groups.

Layer 5: imports backend, utils (``argument``, ``conv``), type_check, variable, function_node
and ``functions.connection._convolution``; ``deconvolution_2d`` (its gradient, which imports this
module) on use. Forward and the weight gradient are one im2col copy and one matrix product per
group.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.connection import _convolution
from chainer_compat.utils import argument, conv, type_check
from chainer_compat.utils._assertions import AssertValueError

_DETERMINISTIC = (
    "deterministic argument is not supported anymore. Use "
    "chainer.using_config('cudnn_deterministic', value) context where value is either `True` "
    "or `False`.")
_REQUIRES_X_GRAD = (
    "requires_x_grad argument is not supported anymore. Just remove the argument. Note that "
    "whether to compute the gradient w.r.t. x is automatically decided during backpropagation.")


def _geometry(stride: Any, pad: Any, dilate: Any, groups: Any,
              negative_stride_error: type[Exception] = AssertValueError) -> tuple[int, ...]:
    """``(sy, sx, ph, pw, dy, dx, groups)`` from the user's arguments, checked.

    Raises:
        TypeError: If a size argument is not an int or a pair of ints.
        ValueError: If a size argument has more than two entries, a stride, dilation or
            ``groups`` is below 1, or a padding is negative (see
            :func:`_convolution.check_geometry` for the other types each error has).
    """
    strides = conv._size_tuple(stride, 2, "stride")
    pads = conv._size_tuple(pad, 2, "pad")
    dilates = conv._size_tuple(dilate, 2, "dilate")
    _convolution.check_geometry(strides, pads, dilates, stride, pad, dilate,
                                negative_stride_error)
    sy, sx = strides
    ph, pw = pads
    dy, dx = dilates
    if groups < 1:
        raise ValueError(f"groups must be a positive integer, got {groups}")
    return sy, sx, ph, pw, dy, dx, int(groups)


# NOTE [Chainer's convolution layouts]
# Chainer's CPU convolution (groups 1) hands tensordot a C-ordered im2col array, so BLAS sees
# the patches as an (n * out_size, c * ksize) matrix in C order (or, with one sample, as an
# F-ordered view of it), and the output keeps its channels last in memory. BLAS rounds by the
# operands' layouts and orientation as well as by their values, so to print Chainer's bits we
# hand it the same operands (NOTE [Chainer's rounding] in
# functions/loss/softmax_cross_entropy.py). That C-ordered copy is up to 9 times slower than the
# channel-major one below (its rows are kernel-width runs), which made the forward and backward
# of a realistic layer 23-37% slower; so we take Chainer's layout only for products of at most
# _CHAINER_LAYOUT_LIMIT multiply-adds, where it costs about 0.1 ms a layer, and for layers with
# one output channel at any size (a matrix-vector product, see _uses_chainer_layout). A single
# sample above the limit takes the channel-major product too (Chainer's patch copy cost it
# 0-20%).
# Measured against Chainer 7.8.1 (NumPy 1.26,
# OpenBLAS 0.3.23) from ours (NumPy 2.4, OpenBLAS 0.3.31), above the limit the channel-major
# forward rounded as Chainer's for every reduction of up to 576 terms, and the weight gradient
# as Chainer's for no layout at all (the two OpenBLAS versions sum long reductions
# differently). The output itself has Chainer's layout on both paths (groups 1, NumPy): its
# channels last in memory, as the view of an (n, *spatial, c) product Chainer returns. Later
# reductions over it (sums, batch statistics) follow that layout: with the channels
# outermost, as the fast path once returned them, a DenseNet and a WideResNet trained to
# other last bits than Chainer's on the same NumPy. The fast path gets the layout without a
# copy by multiplying the transposed operands (the patches' rows by the weight's columns),
# which BLAS computes as the same product: identical bits, the result laid out as Chainer's.
# What follows pays for that layout as it does on Chainer: a batch normalization over a
# channels-last (16, 32, 32, 32) array takes about twice as long as over a C-ordered one, and
# a large convolution, batch normalization and ReLU, forward and backward, 5-11% longer than
# with the channels outermost (still about 1.6 times faster than Chainer's).
_CHAINER_LAYOUT_LIMIT = 2 ** 20


def _uses_chainer_layout(xp: Any, groups: int, rows: int, depth: int,
                         out_channels: int, samples: int) -> bool:
    """Whether to contract as Chainer's CPU code does: NOTE [Chainer's convolution layouts].

    Args:
        xp: The array module.
        groups: The channel groups (Chainer's grouped path is already ours).
        rows: ``n`` times the output's spatial size.
        depth: The input channels per group times the kernel's size.
        out_channels: The output channels.
        samples: ``n``, the batch size.
    """
    if xp is not numpy or groups != 1:
        return False
    # One output channel (a discriminator's or a regressor's last layer) at any size: BLAS
    # runs it as a matrix-vector product, whose rounding the layout alone decides, so Chainer's
    # bits are within reach for the price of the patch copy (about 1.7 times the channel-major
    # forward and weight gradient; still about twice as fast as Chainer). With one sample the
    # channel-major product already rounds as Chainer's.
    return (rows * depth * out_channels <= _CHAINER_LAYOUT_LIMIT
            or (out_channels == 1 and samples > 1))


def _as_chainer_reads_patches(patches: Any) -> Any:
    """The ``(n, c, *ksize, *outs)`` patch view, laid out as Chainer's im2col array is.

    Compat: with one sample, tensordot reads Chainer's C-ordered im2col array as an F-ordered
    matrix, a view, which BLAS rounds differently from the C-ordered copy it makes of our
    strided view; with more samples tensordot copies both to the same C order (NOTE [Chainer's
    convolution layouts]).
    """
    if patches.shape[0] == 1:
        return numpy.ascontiguousarray(patches)
    return patches


def _as_chainer_reads_gy(gy: Any) -> Any:
    """``gy``, copied to C order where Chainer's CPU weight gradient copies it.

    Compat: Chainer copies a gy that is neither C- nor F-contiguous and has an axis of length 1
    (a workaround for an old NumPy); the copy changes the layout BLAS reads, and with it the
    rounding (NOTE [Chainer's convolution layouts]).
    """
    if not (gy.flags.c_contiguous or gy.flags.f_contiguous) and 1 in gy.shape:
        return numpy.ascontiguousarray(gy)
    return gy


def _convolve(x: Any, w: Any, node: Any, out_h: int, out_w: int) -> Any:
    """The convolution of the arrays ``x`` and ``w`` with ``node``'s geometry, in x's dtype."""
    xp = backend.get_array_module(x)
    n = x.shape[0]
    out_channels, group_channels, kh, kw = w.shape
    groups = node.groups
    patches = conv._patches(x, kh, kw, node.sy, node.sx, node.ph, node.pw, out_h, out_w,
                            node.dy, node.dx)
    depth = group_channels * kh * kw
    if _uses_chainer_layout(xp, groups, n * out_h * out_w, depth, out_channels, n):
        # compat: (n * out_h * out_w, depth) x (depth, c_O), the channels last in memory
        # (NOTE [Chainer's convolution layouts]).
        y = numpy.tensordot(_as_chainer_reads_patches(patches), w, ((1, 2, 3), (1, 2, 3)))
        return numpy.moveaxis(y.astype(x.dtype, copy=False), 3, 1)
    # (c, kh, kw, n, out_h, out_w) so that each group is one matrix product over all images.
    columns = patches.transpose(1, 2, 3, 0, 4, 5).reshape(groups, depth, n * out_h * out_w)
    weights = w.reshape(groups, out_channels // groups, depth)
    if xp is numpy and groups == 1:
        # compat: the same product, transposed, so that the channels come out last in memory
        # as in Chainer's output (NOTE [Chainer's convolution layouts]).
        y = numpy.matmul(columns[0].T, weights[0].T).reshape(n, out_h, out_w, out_channels)
        return numpy.moveaxis(y.astype(x.dtype, copy=False), 3, 1)
    y = xp.matmul(weights, columns).reshape(out_channels, n, out_h, out_w).transpose(1, 0, 2, 3)
    return y.astype(x.dtype, copy=False)


def _weight_gradient(x: Any, gy: Any, node: Any, w_shape: tuple[int, ...], w_dtype: Any) -> Any:
    """The gradient of the convolution with respect to its weight, in ``w_dtype``."""
    xp = backend.get_array_module(x)
    n = x.shape[0]
    out_channels, group_channels, kh, kw = w_shape
    _, _, out_h, out_w = gy.shape
    groups = node.groups
    patches = conv._patches(x, kh, kw, node.sy, node.sx, node.ph, node.pw, out_h, out_w,
                            node.dy, node.dx)
    depth = group_channels * kh * kw
    if _uses_chainer_layout(xp, groups, n * out_h * out_w, depth, out_channels, n):
        # compat: gy as (c_O, n * out_h * out_w) times the patches as (n * out_h * out_w,
        # depth) (NOTE [Chainer's convolution layouts]).
        gw = numpy.tensordot(_as_chainer_reads_gy(gy), _as_chainer_reads_patches(patches),
                             ((0, 2, 3), (0, 4, 5)))
        return gw.astype(w_dtype, copy=False)
    # (groups, n * out_h * out_w, depth): the patches as matrix rows.
    columns = patches.transpose(1, 2, 3, 0, 4, 5).reshape(
        groups, depth, n * out_h * out_w).transpose(0, 2, 1)
    grads = gy.transpose(1, 0, 2, 3).reshape(groups, out_channels // groups, n * out_h * out_w)
    gw = xp.matmul(grads, columns).reshape(w_shape)
    return gw.astype(w_dtype, copy=False)


class Convolution2DFunction(_convolution.ConvolutionNode):
    """2-D convolution of ``x`` ``(n, c_I, h, w)`` with ``W`` ``(c_O, c_I / groups, kh, kw)``.

    Use :func:`convolution_2d`. Arguments as there; ``cudnn_fast`` is accepted for Chainer's
    signature and refused when true (there is no cuDNN path).
    """

    def __init__(self, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                 **kwargs: Any) -> None:
        dilate, groups, cudnn_fast = argument.parse_kwargs(
            kwargs, ("dilate", 1), ("groups", 1), ("cudnn_fast", False),
            deterministic=_DETERMINISTIC, requires_x_grad=_REQUIRES_X_GRAD)
        (self.sy, self.sx, self.ph, self.pw, self.dy, self.dx,
         self.groups) = _geometry(stride, pad, dilate, groups)
        self.cover_all = cover_all
        self.cudnn_fast = cudnn_fast

    def check_type_forward(self, in_types: Any) -> None:
        x_type, w_type = _convolution.expect_x_and_w(in_types, 4)
        type_check.expect(
            x_type.shape[1] == w_type.shape[1] * self.groups,
            w_type.shape[0] % self.groups == 0,
        )
        _convolution.expect_bias(in_types, w_type.shape[0], x_type)

    def _output_size(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> tuple[int, int]:
        _, _, h, w = x_shape
        _, _, kh, kw = w_shape
        out_h = conv.get_conv_outsize(h, kh, self.sy, self.ph, self.cover_all, self.dy)
        out_w = conv.get_conv_outsize(w, kw, self.sx, self.pw, self.cover_all, self.dx)
        if out_h <= 0 or out_w <= 0:
            raise _convolution.empty_output_error(
                "convolution_2d", (out_h, out_w), (h, w), (kh, kw), (self.sy, self.sx),
                (self.ph, self.pw), (self.dy, self.dx), transposed=False)
        return out_h, out_w

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.cudnn_fast:
            raise RuntimeError(
                "cudnn_fast must be False, got True: chainer_compat has no cuDNN "
                "channel-last path; remove the argument")
        self.retain_inputs((0, 1))  # b is not needed by backward
        x, w = inputs[0], inputs[1]
        out_h, out_w = self._output_size(x.shape, w.shape)
        y = _convolve(x, w, self, out_h, out_w)
        if len(inputs) == 3:
            y += inputs[2].reshape(1, -1, 1, 1)
        return y,

    def _x_grad(self, x: Any, w: Any, gy: Any) -> Any:
        # deconvolution_2d imports this module for its own gradient.
        from chainer_compat.functions.connection.deconvolution_2d import deconvolution_2d

        return deconvolution_2d(
            gy, w, stride=(self.sy, self.sx), pad=(self.ph, self.pw), outsize=x.shape[2:],
            dilate=(self.dy, self.dx), groups=self.groups)

    def _w_grad(self, x: Any, w: Any, gy: Any) -> Any:
        return Convolution2DGradW(self, w.shape, w.dtype).apply((x, gy))[0]


class Convolution2DGradW(FunctionNode):
    """The weight gradient of a convolution, from its inputs ``(x, gy)``; differentiable.

    Also the weight gradient of a deconvolution, given ``(gy, x)``.

    Args:
        conv2d: The node whose geometry (stride, pad, dilate, groups, cover_all) to use.
        w_shape: The weight's shape.
        w_dtype: The weight's dtype, which the result is cast to.
        w_layout: Accepted for Chainer's signature; only the standard layout (None) exists.
    """

    def __init__(self, conv2d: Any, w_shape: tuple[int, ...], w_dtype: Any,
                 w_layout: Any = None) -> None:
        if w_layout is not None:
            raise ValueError(
                f"w_layout must be None (the standard layout), got {w_layout!r}: "
                "chainer_compat has no memory layouts")
        self.sy, self.sx = conv2d.sy, conv2d.sx
        self.ph, self.pw = conv2d.ph, conv2d.pw
        self.dy, self.dx = conv2d.dy, conv2d.dx
        self.groups = conv2d.groups
        self.cover_all = conv2d.cover_all
        self.kh, self.kw = w_shape[2:]
        self.W_shape = tuple(w_shape)
        self.W_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _weight_gradient(x, gy, self, self.W_shape, self.W_dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # See Convolution2DFunction.backward.
        from chainer_compat.functions.connection.deconvolution_2d import deconvolution_2d

        x, gy = self.get_retained_inputs()
        ggw, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(deconvolution_2d(
                gy, ggw, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
                outsize=x.shape[2:], dilate=(self.dy, self.dx), groups=self.groups))
        if 1 in indexes:
            ggy = convolution_2d(
                x, ggw, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
                cover_all=bool(self.cover_all), dilate=(self.dy, self.dx), groups=self.groups)
            # A deconvolution's cover_all on one axis only: see _convolution.crop_to.
            grads.append(_convolution.crop_to(ggy, gy.shape))
        return tuple(grads)


def convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, *, dilate: Any = 1, groups: int = 1,
                   **kwargs: Any) -> variable.Variable:
    """Two-dimensional convolution: each output pixel is a window of ``x`` dotted with a filter.

    With input ``(n, c_I, h_I, w_I)`` and filters ``(c_O, c_I / groups, h_K, w_K)``, windows start
    at ``(-h_P, -w_P)`` and move by the stride; the output is ``(n, c_O, h_O, w_O)`` with
    ``h_O = (h_I + 2 h_P - h_K') // s_Y + 1`` where ``h_K' = h_K + (h_K - 1)(d_Y - 1)`` is the
    dilated kernel height (likewise ``w_O``). :func:`chainer_compat.utils.conv.get_conv_outsize`
    computes it.

    Args:
        x: Input Variable or array of shape ``(n, c_I, h_I, w_I)``.
        W: Filters of shape ``(c_O, c_I / groups, h_K, w_K)``.
        b: Optional bias of shape ``(c_O,)``, in ``x``'s dtype, added at every pixel.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(h_P, w_P)`` at both ends of each spatial axis.
        cover_all: If True, one more window is added along an axis whose last window would
            leave input pixels uncovered (``h_O = (h_I + 2 h_P - h_K' + s_Y - 1) // s_Y + 1``).
        dilate: Dilation ``d`` or ``(d_Y, d_X)``: the spacing of the filter taps.
        groups: Number of channel groups: input and output channels are split into this many
            blocks, each convolved with its own filters. Must divide ``c_I`` and ``c_O``.
        **kwargs: Only ``cudnn_fast=False``; Chainer's removed ``deterministic`` is refused.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)`` in ``x``'s dtype.

    Raises:
        ValueError: For ``deterministic=``, a stride, dilation or ``groups`` below 1, a
            negative padding, or a size argument of more than two entries (a zero stride is
            also a ZeroDivisionError, a negative stride or padding and a bad dilation an
            AssertionError).
        TypeError: For any other unknown keyword argument, or a size argument that is not an
            int or a pair of ints.
        RuntimeError: If the output would be empty.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched shapes.
    """
    (cudnn_fast,) = argument.parse_kwargs(
        kwargs, ("cudnn_fast", False), deterministic=_DETERMINISTIC)
    node = Convolution2DFunction(stride, pad, cover_all, dilate=dilate, groups=groups,
                                 cudnn_fast=cudnn_fast)
    args = (x, W) if b is None else (x, W, b)
    y, = node.apply(args)
    return y
