"""``Convolution2D``: the 2-D convolution layer, whose input channel count may be inferred from
the first input.

Layer 8: imports functions, utils, variable and the connection links' private helpers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chainer_compat import memory_layouts, variable
from chainer_compat.functions.connection.convolution_2d import _DETERMINISTIC, convolution_2d
from chainer_compat.links.connection._conv_base import (
    as_pair,
    check_from_params_bias,
    check_groups,
)
from chainer_compat.links.connection._weight_link import WeightLink
from chainer_compat.utils import argument

__all__ = ["Convolution2D"]


class Convolution2D(WeightLink):
    """A 2-D convolution layer: :func:`~chainer_compat.functions.convolution_2d` with its own
    filters ``W`` and bias ``b``.

    ``Convolution2D(out_channels, ksize)`` (or ``in_channels=None``) leaves ``W``
    uninitialized until the first call, which reads the channel count from the input.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call. With
            ``ksize`` omitted, the two positional sizes are ``(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.
        nobias: If True, the layer has no bias and ``b`` is None.
        initialW: Initializer of ``W`` (shape ``(out_channels, in_channels / groups, k_H,
            k_W)``): an initializer, a scalar, an array or None for ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(out_channels,)``); None means zeros.
        dilate: Dilation ``d`` or ``(d_Y, d_X)``.
        groups: Number of channel groups; must divide both channel counts.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.
        cudnn_fast: Always False (Chainer's cuDNN channel-last compute mode is not offered).
        x_layout: The input memory layout the layer expects: None, the standard channel-first one.

    Raises:
        ValueError: If ``groups`` does not divide a channel count, or for ``deterministic=``.
        TypeError: For any other unknown keyword argument.
    """

    def __init__(self, in_channels: int | None, out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, *, dilate: Any = 1, groups: int = 1,
                 **kwargs: Any) -> None:
        super().__init__()
        argument.parse_kwargs(kwargs, deterministic=_DETERMINISTIC)
        if ksize is None:
            # compat: Convolution2D(out_channels, ksize), as in Chainer.
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.ksize = ksize
        self.stride = as_pair(stride)
        self.pad = as_pair(pad)
        self.dilate = as_pair(dilate)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.groups = int(groups)
        # compat: Chainer sets these from its cuDNN "cudnn_fast" compute mode, never on here.
        self.cudnn_fast = False
        self.x_layout = memory_layouts.CUDNN_CHANNEL_FIRST_X
        self._add_weight(initialW, in_channels)
        self._add_bias(nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = as_pair(self.ksize)
        check_groups(in_channels, self.out_channels, self.groups)
        # compat: Chainer's int(in / groups), so a float count (channels / 2) works too.
        self.W.initialize((self.out_channels, int(in_channels / self.groups), kh, kw))

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, *, dilate: Any = 1, groups: int = 1) -> Convolution2D:
        """Builds a layer whose parameters are copies of the given arrays.

        Args:
            W: Filters of shape ``(out_channels, in_channels / groups, k_H, k_W)`` (an array
                or a Variable).
            b: Bias of ``out_channels`` elements, or None for zeros.
            stride: As for the constructor.
            pad: As for the constructor.
            nobias: If True, the new layer has no bias.
            dilate: As for the constructor.
            groups: As for the constructor.

        Returns:
            The new layer.

        Raises:
            ValueError: If ``b`` does not have ``out_channels`` elements.
        """
        out_channels, group_channels, kh, kw = W.shape
        check_from_params_bias(b, out_channels)
        return cls(group_channels * groups, out_channels, (kh, kw), stride, pad, nobias,
                   initialW=variable.as_array(W), initial_bias=variable.as_array(b),
                   dilate=dilate, groups=groups)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """The constructor's arguments, which ``str(link)`` shows."""
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None
        yield "dilate", self.dilate
        yield "groups", self.groups

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolution; initializes ``W`` from ``x``'s channel count if needed.

        Args:
            x: Input of shape ``(n, in_channels, h, w)``.

        Returns:
            The output, of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return convolution_2d(x, self.W, self.b, self.stride, self.pad, dilate=self.dilate,
                              groups=self.groups)
