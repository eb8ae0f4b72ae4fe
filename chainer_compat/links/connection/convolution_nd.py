"""``ConvolutionND``, ``Convolution1D``, ``Convolution3D``: N-d convolution layers whose input
channel count may be inferred from the first input.

Layer 8: imports functions, utils, variable and the connection links' private helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.connection.convolution_nd import convolution_nd
from chainer_compat.links.connection._conv_base import check_from_params_bias, check_groups
from chainer_compat.links.connection._weight_link import WeightLink
from chainer_compat.utils import argument, conv_nd

__all__ = ["Convolution1D", "Convolution3D", "ConvolutionND"]


class ConvolutionND(WeightLink):
    """An N-d convolution layer: :func:`~chainer_compat.functions.convolution_nd` with its own
    filters ``W`` and bias ``b``.

    ``ConvolutionND(ndim, out_channels, ksize)`` (or ``in_channels=None``) leaves ``W``
    uninitialized until the first call, which reads the channel count from the input.

    Args:
        ndim: Number of spatial axes.
        in_channels: Number of input channels, or None to infer it on the first call. With
            ``ksize`` omitted, the two positional sizes are ``(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size: an int or ``ndim`` ints.
        stride: Stride: an int or ``ndim`` ints.
        pad: Zero padding: an int or ``ndim`` ints.
        nobias: If True, the layer has no bias and ``b`` is None.
        initialW: Initializer of ``W`` (shape ``(out_channels, in_channels / groups, *ksize)``);
            None means ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(out_channels,)``); None means zeros.
        cover_all: Passed to :func:`~chainer_compat.functions.convolution_nd`.
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
                 initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        if ksize is None:
            # compat: ConvolutionND(ndim, out_channels, ksize), as in Chainer.
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.out_channels = out_channels
        self.ksize = conv_nd.as_tuple(ksize, ndim)
        self.stride = stride
        self.pad = pad
        self.cover_all = cover_all
        self.dilate = conv_nd.as_tuple(dilate, ndim)
        self.groups = int(groups)
        self._add_weight(initialW, in_channels)
        self._add_bias(nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        check_groups(in_channels, self.out_channels, self.groups)
        # compat: Chainer's int(in / groups), so a float count (channels / 2) works too.
        self.W.initialize((self.out_channels, int(in_channels / self.groups)) + self.ksize)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, **kwargs: Any) -> ConvolutionND:
        """Builds a layer whose parameters are copies of the given arrays.

        Args:
            W: Filters of shape ``(out_channels, in_channels / groups, *ksize)``.
            b: Bias of ``out_channels`` elements, or None for zeros.
            stride: As for the constructor.
            pad: As for the constructor.
            nobias: If True, the new layer has no bias.
            **kwargs: ``cover_all``, ``dilate`` and ``groups``, as for the constructor.

        Returns:
            The new layer.

        Raises:
            ValueError: If ``b`` does not have ``out_channels`` elements.
            TypeError: For an unknown keyword argument.
        """
        cover_all, dilate, groups = argument.parse_kwargs(
            kwargs, ("cover_all", False), ("dilate", 1), ("groups", 1))
        out_channels, group_channels, *ksize = W.shape
        check_from_params_bias(b, out_channels)
        return cls(len(ksize), group_channels * groups, out_channels, tuple(ksize), stride,
                   pad, nobias, initialW=variable.as_array(W),
                   initial_bias=variable.as_array(b), cover_all=cover_all, dilate=dilate,
                   groups=groups)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolution; initializes ``W`` from ``x``'s channel count if needed.

        Args:
            x: Input of shape ``(n, in_channels, d_1, ..., d_N)``.

        Returns:
            The output, of shape ``(n, out_channels, l_1, ..., l_N)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return convolution_nd(x, self.W, self.b, self.stride, self.pad,
                              cover_all=self.cover_all, dilate=self.dilate, groups=self.groups)


class Convolution1D(ConvolutionND):
    """:class:`ConvolutionND` with ``ndim=1``; ``ksize`` is required."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, cover_all: bool = False, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)


class Convolution3D(ConvolutionND):
    """:class:`ConvolutionND` with ``ndim=3``; ``ksize`` is required."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, cover_all: bool = False, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)
