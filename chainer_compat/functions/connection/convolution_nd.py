"""``convolution_nd``: N-dimensional convolution with stride, padding, dilation and groups, and
its 1-D and 3-D forms.

Layer 5: imports backend, utils (``conv``, ``conv_nd``), variable, function_node and
``functions.connection._convolution``; ``deconvolution_nd`` (its gradient, which imports this
module) on use.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.connection import _convolution
from chainer_compat.functions.connection.convolution_2d import (
    _as_chainer_reads_gy,
    _as_chainer_reads_patches,
    _uses_chainer_layout,
)
from chainer_compat.utils import conv, conv_nd
from chainer_compat.utils.conv_nd import _check_spatial_ndim


def _geometry(ndim: int, stride: Any, pad: Any, dilate: Any,
              groups: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """``(stride, pad, dilate, groups)`` as tuples of ``ndim`` ints and an int, checked.

    Raises:
        TypeError: If a size argument is not an int or a sequence of ints.
        ValueError: If an argument has the wrong length, a stride, dilation or ``groups`` is
            below 1, or a padding is negative (see :func:`_convolution.check_geometry` for the
            other types each error has).
    """
    if ndim < 1:
        raise ValueError(f"ndim must be at least 1, got {ndim}")
    strides = conv._size_tuple(stride, ndim, "stride")
    pads = conv._size_tuple(pad, ndim, "pad")
    dilates = conv._size_tuple(dilate, ndim, "dilate")
    _convolution.check_geometry(strides, pads, dilates, stride, pad, dilate)
    if groups < 1:
        raise ValueError(f"groups must be a positive integer, got {groups}")
    return strides, pads, dilates, int(groups)


def _columns(x: Any, ksize: tuple[int, ...], node: Any, outs: tuple[int, ...]) -> Any:
    """The windows of ``x`` as ``(groups, c / groups * prod(ksize), n * prod(outs))``."""
    ndim = len(ksize)
    patches = conv_nd._patches(x, ksize, node.stride, node.pad, outs, node.dilate)
    # (c, *ksize, n, *outs) so that each group is one matrix product over all samples.
    order = (1, *range(2, 2 + ndim), 0, *range(2 + ndim, 2 + 2 * ndim))
    return patches.transpose(order).reshape(node.groups, -1, x.shape[0] * _product(outs))


def _product(values: Any) -> int:
    result = 1
    for value in values:
        result *= int(value)
    return result


def _channels_second(y: Any) -> Any:
    """``(c, n, ...)`` -> ``(n, c, ...)``."""
    return y.transpose((1, 0) + tuple(range(2, y.ndim)))


def _bias_grad_in_bias_dtype(node: FunctionNode, indexes: tuple[int, ...],
                             grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """``grads`` with the bias's gradient (last, when wanted) cast to the bias's dtype.

    The N-d functions take a bias of any float dtype; its gradient, gy summed, has gy's.
    """
    if 2 not in indexes:
        return grads
    bias_dtype = node.inputs[2].dtype
    if grads[-1].dtype == bias_dtype:
        return grads
    # functions.array.cast is a sibling function module, needed only here.
    from chainer_compat.functions.array.cast import cast

    return (*grads[:-1], cast(grads[-1], bias_dtype))


def _check_channels(in_channels: int, out_channels: int, filter_channels: int,
                    groups: int) -> None:
    """Checks the channel counts against ``groups`` and the filters, with Chainer's types.

    Raises:
        TypeError: If ``groups`` does not divide a channel count (Chainer's type and wording).
        ValueError: If the input's channel count is not the one the filters expect.
    """
    if in_channels % groups != 0:
        raise TypeError("The number of groups must be a divisor of that of input channels")
    if out_channels % groups != 0:
        raise TypeError("The number of groups must be a divisor of that of output channels")
    if in_channels != filter_channels:
        # compat: Chainer fails inside the matrix product here, with a ValueError.
        raise ValueError(
            f"the input's channel count must be W's input channels times groups = "
            f"{filter_channels}, got {in_channels}: check W's shape and groups")


class ConvolutionND(_convolution.ConvolutionNode):
    """N-d convolution of ``x`` ``(n, c_I, d_1..d_N)`` with ``W`` ``(c_O, c_I / groups,
    k_1..k_N)``. Use :func:`convolution_nd`; arguments as there.
    """

    def __init__(self, ndim: int, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        self.ndim = ndim
        self.stride, self.pad, self.dilate, self.groups = _geometry(
            ndim, stride, pad, dilate, groups)
        self.cover_all = cover_all

    def check_type_forward(self, in_types: Any) -> None:
        x_type, w_type = _convolution.expect_x_and_w(in_types, self.ndim + 2)
        _convolution.expect_bias(in_types, w_type.shape[0])

    def _output_sizes(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...]
                      ) -> tuple[int, ...]:
        ksize = w_shape[2:]
        outs = tuple(conv.get_conv_outsize(size, k, s, p, self.cover_all, d)
                     for size, k, s, p, d in zip(x_shape[2:], ksize, self.stride, self.pad,
                                                 self.dilate))
        if any(out <= 0 for out in outs):
            raise _convolution.empty_output_error(
                "convolution_nd", outs, tuple(x_shape[2:]), tuple(ksize), self.stride,
                self.pad, self.dilate, transposed=False)
        return outs

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))  # b is not needed by backward
        x, w = inputs[0], inputs[1]
        _check_channels(x.shape[1], w.shape[0], w.shape[1] * self.groups, self.groups)
        xp = backend.get_array_module(x)
        outs = self._output_sizes(x.shape, w.shape)
        out_channels = w.shape[0]
        n, ksize = x.shape[0], w.shape[2:]
        rows = n * _product(outs)
        if _uses_chainer_layout(xp, self.groups, rows, _product(w.shape[1:]), out_channels,
                                n):
            # compat: the patches as (n * prod(outs), c * prod(ksize)) times W, the channels
            # last in memory (NOTE [Chainer's convolution layouts] in convolution_2d.py).
            patches = conv_nd._patches(x, ksize, self.stride, self.pad, outs, self.dilate)
            axes = tuple(range(1, self.ndim + 2))
            y = numpy.tensordot(_as_chainer_reads_patches(patches), w, (axes, axes))
            y = y.astype(x.dtype, copy=False)
            if len(inputs) == 3:
                y += inputs[2]  # in place: see the compat note below
            return numpy.moveaxis(y, self.ndim + 1, 1),
        columns = _columns(x, w.shape[2:], self, outs)
        weights = w.reshape(self.groups, out_channels // self.groups, -1)
        if xp is numpy and self.groups == 1:
            # compat: the same product, transposed, so that the channels come out last in
            # memory as in Chainer's output (NOTE [Chainer's convolution layouts]).
            y = numpy.matmul(columns[0].T, weights[0].T).reshape((n,) + outs + (out_channels,))
            y = numpy.moveaxis(y.astype(x.dtype, copy=False), -1, 1)
        else:
            y = xp.matmul(weights, columns).reshape((out_channels, n) + outs)
            y = _channels_second(y).astype(x.dtype, copy=False)
        if len(inputs) == 3:
            # compat: in place, so a bias of another float dtype is added in the wider dtype
            # and rounded once to y's, as Chainer does.
            y += inputs[2].reshape((1, -1) + (1,) * self.ndim)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _bias_grad_in_bias_dtype(self, indexes, super().backward(indexes, grad_outputs))

    def _x_grad(self, x: Any, w: Any, gy: Any) -> Any:
        # deconvolution_nd imports this module for its own gradient.
        from chainer_compat.functions.connection.deconvolution_nd import deconvolution_nd

        return deconvolution_nd(gy, w, stride=self.stride, pad=self.pad, outsize=x.shape[2:],
                                dilate=self.dilate, groups=self.groups)

    def _w_grad(self, x: Any, w: Any, gy: Any) -> Any:
        return ConvolutionNDGradW(self, w.shape, w.dtype).apply((x, gy))[0]


class ConvolutionNDGradW(FunctionNode):
    """The weight gradient of an N-d convolution, from its inputs ``(x, gy)``; differentiable.

    Also the weight gradient of an N-d deconvolution, given ``(gy, x)``.

    Args:
        convnd: The node whose geometry (stride, pad, dilate, groups, cover_all) to use.
        w_shape: The weight's shape.
        w_dtype: The weight's dtype, which the result is cast to.
    """

    def __init__(self, convnd: Any, w_shape: tuple[int, ...], w_dtype: Any) -> None:
        self.ndim = convnd.ndim
        self.stride, self.pad, self.dilate = convnd.stride, convnd.pad, convnd.dilate
        self.groups = convnd.groups
        self.cover_all = convnd.cover_all
        self.ksize = tuple(w_shape[2:])
        self.W_shape = tuple(w_shape)
        self.W_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        outs = tuple(gy.shape[2:])
        n = x.shape[0]
        rows = n * _product(outs)
        if _uses_chainer_layout(xp, self.groups, rows, _product(self.W_shape[1:]),
                                self.W_shape[0], n):
            # compat: gy as (c_O, n * prod(outs)) times the patches as (n * prod(outs),
            # c * prod(ksize)) (NOTE [Chainer's convolution layouts] in convolution_2d.py).
            patches = conv_nd._patches(x, self.ksize, self.stride, self.pad, outs, self.dilate)
            spatial = tuple(range(2, self.ndim + 2))
            patch_axes = (0, *range(self.ndim + 2, 2 * self.ndim + 2))
            gw = numpy.tensordot(_as_chainer_reads_gy(gy), _as_chainer_reads_patches(patches),
                                 ((0, *spatial), patch_axes))
            return gw.astype(self.W_dtype, copy=False),
        columns = _columns(x, self.ksize, self, outs).transpose(0, 2, 1)
        grads = _channels_second(gy).reshape(self.groups, self.W_shape[0] // self.groups, -1)
        gw = xp.matmul(grads, columns).reshape(self.W_shape)
        return gw.astype(self.W_dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # See ConvolutionND.backward.
        from chainer_compat.functions.connection.deconvolution_nd import deconvolution_nd

        x, gy = self.get_retained_inputs()
        ggw, = grad_outputs
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(deconvolution_nd(
                gy, ggw, stride=self.stride, pad=self.pad, outsize=x.shape[2:],
                dilate=self.dilate, groups=self.groups))
        if 1 in indexes:
            ggy = convolution_nd(x, ggw, stride=self.stride, pad=self.pad,
                                 cover_all=bool(self.cover_all), dilate=self.dilate,
                                 groups=self.groups)
            # A deconvolution's cover_all on some axes only: see _convolution.crop_to.
            grads.append(_convolution.crop_to(ggy, gy.shape))
        return tuple(grads)


def convolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, dilate: Any = 1,
                   groups: int = 1) -> variable.Variable:
    """N-dimensional convolution: each output entry is a window of ``x`` dotted with a filter.

    The N-d form of :func:`~chainer_compat.functions.convolution_2d`: with input
    ``(n, c_I, d_1, ..., d_N)`` and filters ``(c_O, c_I / groups, k_1, ..., k_N)`` the output
    is ``(n, c_O, l_1, ..., l_N)`` with ``l_i = (d_i + 2 p_i - k_i') // s_i + 1`` where
    ``k_i' = k_i + (k_i - 1)(dilate_i - 1)``.

    Args:
        x: Input Variable or array of shape ``(n, c_I, d_1, ..., d_N)``.
        W: Filters of shape ``(c_O, c_I / groups, k_1, ..., k_N)``.
        b: Optional bias of shape ``(c_O,)``, in ``x``'s dtype.
        stride: Stride: an int or N ints.
        pad: Zero padding at both ends of each spatial axis: an int or N ints.
        cover_all: If True, one more window is added along an axis whose last window would
            leave input entries uncovered.
        dilate: Dilation: an int or N ints.
        groups: Number of channel groups; must divide ``c_I`` and ``c_O``.

    Returns:
        A Variable of shape ``(n, c_O, l_1, ..., l_N)`` in ``x``'s dtype.

    Raises:
        ValueError: If a size argument has the wrong length, a stride, dilation or ``groups``
            is below 1, or a padding is negative (a zero stride is also a ZeroDivisionError,
            a wrong length, a negative stride or padding and a bad dilation an
            AssertionError, as in Chainer).
        TypeError: If a size argument is not an int or a sequence of ints.
        RuntimeError: If the output would be empty (also an AssertionError, which Chainer
            raises).
        chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched shapes.
    """
    ndim = len(x.shape[2:])
    node = ConvolutionND(ndim, stride, pad, cover_all, dilate=dilate, groups=groups)
    args = (x, W) if b is None else (x, W, b)
    y, = node.apply(args)
    return y


def convolution_1d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, dilate: Any = 1,
                   groups: int = 1) -> variable.Variable:
    """1-D convolution: :func:`convolution_nd` on input of shape ``(n, c_I, d)``.

    Raises:
        ValueError: If ``x`` does not have exactly one axis after the channel axis, and as
            :func:`convolution_nd` does.
    """
    _check_spatial_ndim(x, 1)
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, dilate: Any = 1,
                   groups: int = 1) -> variable.Variable:
    """3-D convolution: :func:`convolution_nd` on input of shape ``(n, c_I, d_1, d_2, d_3)``.

    Raises:
        ValueError: If ``x`` does not have exactly three axes after the channel axis, and as
            :func:`convolution_nd` does.
    """
    _check_spatial_ndim(x, 3)
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)
