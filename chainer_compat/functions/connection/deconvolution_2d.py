"""``deconvolution_2d``: 2-D transposed convolution, the gradient of ``convolution_2d`` for x.

Layer 5: imports backend, utils (``argument``, ``conv``), type_check, variable and
``functions.connection`` (``convolution_2d``, its gradient, and ``_convolution``). Forward is one
matrix product per group, then col2im.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.functions.connection import _convolution
from chainer_compat.functions.connection.convolution_2d import (
    _DETERMINISTIC,
    _REQUIRES_X_GRAD,
    Convolution2DGradW,
    _geometry,
    convolution_2d,
)
from chainer_compat.utils import argument, conv, type_check


class _NegativeStrideError(ValueError, RuntimeError):
    """A negative stride of :func:`deconvolution_2d`.

    Compat: Chainer fails on it with the RuntimeError of its output size check; this error is
    both a ValueError and that RuntimeError.
    """


def _deconvolve(x: Any, w: Any, node: Any) -> Any:
    """The transposed convolution of the arrays ``x`` and ``w`` with ``node``'s geometry."""
    xp = backend.get_array_module(x)
    n, in_channels, h, width = x.shape
    _, group_out_channels, kh, kw = w.shape
    groups = node.groups
    group_in_channels = in_channels // groups
    if xp is numpy and groups == 1:
        # compat: Chainer's CPU contraction, for its rounding (NOTE [Chainer's rounding] in
        # functions/loss/softmax_cross_entropy.py): W as (c_O * kh * kw, c_I) times x as
        # (c_I, n * h * w), through the same tensordot.
        columns = numpy.tensordot(w, x, (0, 1)).astype(x.dtype, copy=False)
        return conv.col2im(numpy.moveaxis(columns, 3, 0), node.sy, node.sx, node.ph, node.pw,
                           node.outh, node.outw, node.dy, node.dx)
    inputs = x.transpose(1, 0, 2, 3).reshape(groups, group_in_channels, n * h * width)
    weights = w.reshape(groups, group_in_channels, group_out_channels * kh * kw)
    # One product per group gives every window of every image: (c_O, kh, kw, n, h, w).
    columns = xp.matmul(weights.transpose(0, 2, 1), inputs).astype(x.dtype, copy=False)
    columns = columns.reshape(groups * group_out_channels, kh, kw, n, h, width)
    return conv.col2im(columns.transpose(3, 0, 1, 2, 4, 5), node.sy, node.sx, node.ph, node.pw,
                       node.outh, node.outw, node.dy, node.dx)


class Deconvolution2DFunction(_convolution.ConvolutionNode):
    """2-D transposed convolution of ``x`` ``(n, c_I, h, w)`` with ``W`` ``(c_I, c_O / groups,
    kh, kw)``. Use :func:`deconvolution_2d`; arguments as there.

    Attributes:
        outh: Output height: the one given, else set by forward.
        outw: Output width: the one given, else set by forward.
        cover_all: Whether the matching convolution (the gradient for ``x``) needs
            ``cover_all``; set by forward, None before.
    """

    # compat: Chainer's class-level default, read before forward has run.
    cover_all: bool | None = None

    def __init__(self, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                 **kwargs: Any) -> None:
        dilate, groups = argument.parse_kwargs(
            kwargs, ("dilate", 1), ("groups", 1),
            deterministic=_DETERMINISTIC, requires_x_grad=_REQUIRES_X_GRAD)
        (self.sy, self.sx, self.ph, self.pw, self.dy, self.dx,
         self.groups) = _geometry(stride, pad, dilate, groups, _NegativeStrideError)
        self.outh: int | None
        self.outw: int | None
        self.outh, self.outw = (None, None) if outsize is None else conv._size_tuple(
            outsize, 2, "outsize", allow_none=True)

    def check_type_forward(self, in_types: Any) -> None:
        x_type, w_type = _convolution.expect_x_and_w(in_types, 4)
        type_check.expect(
            x_type.shape[1] == w_type.shape[0],
            x_type.shape[1] % self.groups == 0,
        )
        _convolution.expect_outsize_fits(x_type, w_type, (self.outh, self.outw),
                                         (self.sy, self.sx), (self.ph, self.pw),
                                         (self.dy, self.dx))
        _convolution.expect_bias(in_types, w_type.shape[1] * self.groups, x_type)

    def _set_output_size(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> None:
        _, _, h, w = x_shape
        _, _, kh, kw = w_shape
        if self.outh is None:
            self.outh = conv.get_deconv_outsize(h, kh, self.sy, self.ph, d=self.dy)
        if self.outw is None:
            self.outw = conv.get_deconv_outsize(w, kw, self.sx, self.pw, d=self.dx)
        if self.outh <= 0 or self.outw <= 0:
            raise _convolution.empty_output_error(
                "deconvolution_2d", (self.outh, self.outw), (h, w), (kh, kw),
                (self.sy, self.sx), (self.ph, self.pw), (self.dy, self.dx), transposed=True)
        self.cover_all = (
            h != conv.get_conv_outsize(self.outh, kh, self.sy, self.ph, d=self.dy)
            or w != conv.get_conv_outsize(self.outw, kw, self.sx, self.pw, d=self.dx))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))  # b is not needed by backward
        x, w = inputs[0], inputs[1]
        self._set_output_size(x.shape, w.shape)
        y = _deconvolve(x, w, self)
        if len(inputs) == 3:
            y += inputs[2].reshape(1, -1, 1, 1)
        return y,

    def _x_grad(self, x: Any, w: Any, gy: Any) -> Any:
        gx = convolution_2d(
            gy, w, stride=(self.sy, self.sx), pad=(self.ph, self.pw),
            cover_all=bool(self.cover_all), dilate=(self.dy, self.dx), groups=self.groups)
        return _convolution.crop_to(gx, x.shape)

    def _w_grad(self, x: Any, w: Any, gy: Any) -> Any:
        return Convolution2DGradW(self, w.shape, w.dtype).apply((gy, x))[0]


def deconvolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, *, dilate: Any = 1, groups: int = 1,
                     **kwargs: Any) -> variable.Variable:
    """Two-dimensional deconvolution (transposed convolution): the adjoint of
    :func:`~chainer_compat.functions.convolution_2d` with the same stride, padding and dilation.

    Each input pixel scatters its filter-weighted copy onto the output, at positions ``s``
    pixels apart; padding is cropped. Without ``outsize``, the output height is
    ``h_O = s_Y (h_I - 1) + h_K' - 2 h_P`` with ``h_K' = (h_K - 1) d_Y + 1`` (likewise ``w_O``);
    :func:`chainer_compat.utils.conv.get_deconv_outsize` computes it.

    Args:
        x: Input Variable or array of shape ``(n, c_I, h_I, w_I)``.
        W: Filters of shape ``(c_I, c_O / groups, h_K, w_K)``.
        b: Optional bias of shape ``(c_O,)``, in ``x``'s dtype, added at every pixel.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Padding ``p`` or ``(h_P, w_P)`` cropped from each end of each spatial axis.
        outsize: ``(h_O, w_O)``, or None to compute it. A size given must be one that a
            convolution with these arguments (with or without ``cover_all``) maps to ``h_I``;
            either entry may be None.
        dilate: Dilation ``d`` or ``(d_Y, d_X)``.
        groups: Number of channel groups; must divide ``c_I``.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)`` in ``x``'s dtype.

    Raises:
        ValueError: For ``deterministic=``, a stride, dilation or ``groups`` below 1, a
            negative padding, or a size argument of more than two entries (a zero stride is
            also a ZeroDivisionError, a negative one a RuntimeError, a bad dilation an
            AssertionError).
        TypeError: For any other unknown keyword argument, or a size argument that is not an
            int or a pair of ints.
        RuntimeError: If the output would be empty.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs, mismatched shapes or
            an ``outsize`` that does not fit ``x``.
    """
    argument.parse_kwargs(kwargs, deterministic=_DETERMINISTIC)
    node = Deconvolution2DFunction(stride, pad, outsize, dilate=dilate, groups=groups)
    args = (x, W) if b is None else (x, W, b)
    y, = node.apply(args)
    return y
