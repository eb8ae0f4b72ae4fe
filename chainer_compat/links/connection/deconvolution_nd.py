"""``DeconvolutionND``, ``Deconvolution1D``, ``Deconvolution3D``: N-d transposed-convolution
layers whose input channel count may be inferred from the first input.

Layer 8: imports functions, utils, variable and the connection links' private helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.connection.deconvolution_nd import deconvolution_nd
from chainer_compat.links.connection._conv_base import check_groups
from chainer_compat.links.connection._weight_link import WeightLink
from chainer_compat.utils import conv_nd

__all__ = ["Deconvolution1D", "Deconvolution3D", "DeconvolutionND"]


class DeconvolutionND(WeightLink):
    """An N-d deconvolution layer: :func:`~chainer_compat.functions.deconvolution_nd` with its
    own filters ``W`` and bias ``b``.

    ``DeconvolutionND(ndim, out_channels, ksize)`` (or ``in_channels=None``) leaves ``W``
    uninitialized until the first call, which reads the channel count from the input.

    Args:
        ndim: Number of spatial axes.
        in_channels: Number of input channels, or None to infer it on the first call. With
            ``ksize`` omitted, the two positional sizes are ``(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size: an int or ``ndim`` ints.
        stride: Stride: an int or ``ndim`` ints.
        pad: Padding cropped from the output: an int or ``ndim`` ints.
        nobias: If True, the layer has no bias and ``b`` is None.
        outsize: Output spatial size (``ndim`` ints), or None to compute it from the input.
        initialW: Initializer of ``W`` (shape ``(in_channels, out_channels / groups,
            *ksize)``); None means ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(out_channels,)``); None means zeros.
        dilate: Dilation: an int or ``ndim`` ints.
        groups: Number of channel groups; must divide both channel counts.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.

    Raises:
        ValueError: If ``groups`` does not divide a channel count, or ``ksize`` or ``dilate``
            has the wrong length.
    """

    def __init__(self, ndim: int, in_channels: int | None, out_channels: Any,
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 outsize: Any = None, initialW: Any = None, initial_bias: Any = None,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        if ksize is None:
            # compat: DeconvolutionND(ndim, out_channels, ksize), as in Chainer.
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.out_channels = out_channels
        self.ksize = conv_nd.as_tuple(ksize, ndim)
        self.stride = stride
        self.pad = pad
        self.outsize = outsize
        self.dilate = conv_nd.as_tuple(dilate, ndim)
        self.groups = int(groups)
        self._add_weight(initialW, in_channels)
        self._add_bias(nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        check_groups(in_channels, self.out_channels, self.groups)
        self.W.initialize((in_channels, self.out_channels // self.groups) + self.ksize)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the deconvolution; initializes ``W`` from ``x``'s channel count if needed.

        Args:
            x: Input of shape ``(n, in_channels, d_1, ..., d_N)``.

        Returns:
            The output, of shape ``(n, out_channels, l_1, ..., l_N)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return deconvolution_nd(x, self.W, b=self.b, stride=self.stride, pad=self.pad,
                                outsize=self.outsize, dilate=self.dilate, groups=self.groups)


class Deconvolution1D(DeconvolutionND):
    """:class:`DeconvolutionND` with ``ndim=1``; ``ksize`` is required."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, outsize: Any = None,
                 initialW: Any = None, initial_bias: Any = None, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)


class Deconvolution3D(DeconvolutionND):
    """:class:`DeconvolutionND` with ``ndim=3``; ``ksize`` is required."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, outsize: Any = None,
                 initialW: Any = None, initial_bias: Any = None, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)
