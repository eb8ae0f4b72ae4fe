"""``deconvolution_nd``: N-dimensional transposed convolution, the gradient of ``convolution_nd``
for x, and its 1-D and 3-D forms.

Layer 5: imports backend, utils (``conv``, ``conv_nd``), type_check, variable and
``functions.connection`` (``convolution_nd``, its gradient, and ``_convolution``).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.connection import _convolution
from chainer_compat.functions.connection.convolution_nd import (
    ConvolutionNDGradW,
    _bias_grad_in_bias_dtype,
    _geometry,
    convolution_nd,
)
from chainer_compat.utils import conv, conv_nd, type_check
from chainer_compat.utils.conv_nd import _check_spatial_ndim


class DeconvolutionND(_convolution.ConvolutionNode):
    """N-d transposed convolution of ``x`` ``(n, c_I, d_1..d_N)`` with ``W`` ``(c_I,
    c_O / groups, k_1..k_N)``. Use :func:`deconvolution_nd`; arguments as there.

    Attributes:
        outs: Output spatial size: the one given, else set by forward.
        cover_all: Whether the matching convolution (the gradient for ``x``) needs
            ``cover_all``; set by forward, None before.
    """

    # compat: Chainer's class-level default, read before forward has run.
    cover_all: bool | None = None

    def __init__(self, ndim: int, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                 dilate: Any = 1, groups: int = 1) -> None:
        self.ndim = ndim
        self.stride, self.pad, self.dilate, self.groups = _geometry(
            ndim, stride, pad, dilate, groups)
        self.outs: tuple[Any, ...] = (
            (None,) * ndim if outsize is None
            else conv._size_tuple(outsize, ndim, "outsize", allow_none=True))

    def check_type_forward(self, in_types: Any) -> None:
        x_type, w_type = _convolution.expect_x_and_w(in_types, self.ndim + 2)
        type_check.expect(x_type.shape[1] == w_type.shape[0])
        _convolution.expect_outsize_fits(x_type, w_type, self.outs, self.stride, self.pad,
                                         self.dilate)
        _convolution.expect_bias(in_types, w_type.shape[1] * self.groups)

    def _set_output_sizes(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> None:
        spatial, ksize = x_shape[2:], w_shape[2:]
        self.outs = tuple(
            conv.get_deconv_outsize(size, k, s, p, d=d) if out is None else out
            for out, size, k, s, p, d in zip(self.outs, spatial, ksize, self.stride, self.pad,
                                             self.dilate))
        if any(out <= 0 for out in self.outs):
            raise _convolution.empty_output_error(
                "deconvolution_nd", self.outs, tuple(spatial), tuple(ksize), self.stride,
                self.pad, self.dilate, transposed=True)
        self.cover_all = any(
            size != conv.get_conv_outsize(out, k, s, p, d=d)
            for size, out, k, s, p, d in zip(spatial, self.outs, ksize, self.stride, self.pad,
                                             self.dilate))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))  # b is not needed by backward
        x, w = inputs[0], inputs[1]
        xp = backend.get_array_module(x)
        n, in_channels = x.shape[:2]
        if in_channels % self.groups != 0:
            # compat: Chainer's type and wording.
            raise TypeError("The number of groups must be a divisor of that of input channels")
        self._set_output_sizes(x.shape, w.shape)
        spatial, ksize = tuple(x.shape[2:]), tuple(w.shape[2:])
        group_out = w.shape[1]
        group_in = in_channels // self.groups
        ndim = self.ndim
        if xp is numpy and self.groups == 1:
            # compat: Chainer's CPU contraction, for its rounding (NOTE [Chainer's rounding] in
            # functions/loss/softmax_cross_entropy.py): W as (c_O * prod(ksize), c_I) times x
            # as (c_I, n * prod(spatial)), through the same tensordot.
            columns = numpy.tensordot(w, x, (0, 1)).astype(x.dtype, copy=False)
            y = conv_nd.col2im_nd(numpy.moveaxis(columns, ndim + 1, 0), self.stride, self.pad,
                                  self.outs, self.dilate)
            if len(inputs) == 3:
                y += inputs[2].reshape((1, -1) + (1,) * ndim)
            return y,
        samples = _channels_first(x).reshape(self.groups, group_in, -1)
        weights = w.reshape(self.groups, group_in, -1)
        # One product per group gives every window of every sample: (c_O, *ksize, n, *spatial).
        columns = xp.matmul(weights.transpose(0, 2, 1), samples).astype(x.dtype, copy=False)
        columns = columns.reshape((self.groups * group_out,) + ksize + (n,) + spatial)
        order = (ndim + 1, 0, *range(1, ndim + 1), *range(ndim + 2, 2 * ndim + 2))
        y = conv_nd.col2im_nd(columns.transpose(order), self.stride, self.pad, self.outs,
                              self.dilate)
        if len(inputs) == 3:
            # compat: in place, so a bias of another float dtype is added in the wider dtype
            # and rounded once to y's, as Chainer does.
            y += inputs[2].reshape((1, -1) + (1,) * ndim)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _bias_grad_in_bias_dtype(self, indexes, super().backward(indexes, grad_outputs))

    def _x_grad(self, x: Any, w: Any, gy: Any) -> Any:
        gx = convolution_nd(gy, w, stride=self.stride, pad=self.pad,
                            cover_all=bool(self.cover_all), dilate=self.dilate,
                            groups=self.groups)
        return _convolution.crop_to(gx, x.shape)

    def _w_grad(self, x: Any, w: Any, gy: Any) -> Any:
        return ConvolutionNDGradW(self, w.shape, w.dtype).apply((gy, x))[0]


def _channels_first(x: Any) -> Any:
    """``(n, c, ...)`` -> ``(c, n, ...)``."""
    return x.transpose((1, 0) + tuple(range(2, x.ndim)))


def deconvolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, dilate: Any = 1,
                     groups: int = 1) -> variable.Variable:
    """N-dimensional deconvolution (transposed convolution): the adjoint of
    :func:`~chainer_compat.functions.convolution_nd` with the same stride, padding and dilation.

    Without ``outsize``, output axis ``i`` has length ``s_i (d_i - 1) + k_i' - 2 p_i`` with
    ``k_i' = (k_i - 1) dilate_i + 1``.

    Args:
        x: Input Variable or array of shape ``(n, c_I, d_1, ..., d_N)``.
        W: Filters of shape ``(c_I, c_O / groups, k_1, ..., k_N)``.
        b: Optional bias of shape ``(c_O,)``, in ``x``'s dtype.
        stride: Stride: an int or N ints.
        pad: Padding cropped from each end of each spatial axis: an int or N ints.
        outsize: Output spatial size (N ints), or None to compute it. A size given must be one
            that a convolution with these arguments (with or without ``cover_all``) maps back
            to ``d_i``.
        dilate: Dilation: an int or N ints.
        groups: Number of channel groups; must divide ``c_I``.

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
        chainer_compat.utils.type_check.InvalidType: On non-float inputs, mismatched shapes or
            an ``outsize`` that does not fit ``x``.
    """
    ndim = len(x.shape[2:])
    node = DeconvolutionND(ndim, stride, pad, outsize, dilate=dilate, groups=groups)
    args = (x, W) if b is None else (x, W, b)
    y, = node.apply(args)
    return y


def deconvolution_1d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, dilate: Any = 1,
                     groups: int = 1) -> variable.Variable:
    """1-D deconvolution: :func:`deconvolution_nd` on input of shape ``(n, c_I, d)``.

    Raises:
        ValueError: If ``x`` does not have exactly one axis after the channel axis, and as
            :func:`deconvolution_nd` does.
    """
    _check_spatial_ndim(x, 1)
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, dilate: Any = 1,
                     groups: int = 1) -> variable.Variable:
    """3-D deconvolution: :func:`deconvolution_nd` on input of shape ``(n, c_I, d_1, d_2,
    d_3)``.

    Raises:
        ValueError: If ``x`` does not have exactly three axes after the channel axis, and as
            :func:`deconvolution_nd` does.
    """
    _check_spatial_ndim(x, 3)
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)
