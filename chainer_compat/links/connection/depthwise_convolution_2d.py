"""``DepthwiseConvolution2D``: the 2-D depthwise convolution layer, whose input channel count
may be inferred from the first input.

Layer 8: imports functions, initializers, variable and the connection links' private helpers.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import initializers, variable
from chainer_compat.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from chainer_compat.links.connection._conv_base import as_pair
from chainer_compat.links.connection._weight_link import WeightLink

__all__ = ["DepthwiseConvolution2D"]


class DepthwiseConvolution2D(WeightLink):
    """A 2-D depthwise convolution layer:
    :func:`~chainer_compat.functions.depthwise_convolution_2d` with its own ``W`` and ``b``.

    With ``in_channels=None``, both ``W`` and ``b`` stay uninitialized until the first call,
    which reads the channel count from the input.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call.
        channel_multiplier: Number of filters per input channel ``c_M``.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.
        nobias: If True, the layer has no bias and ``b`` is None.
        initialW: Initializer of ``W`` (shape ``(c_M, in_channels, k_H, k_W)``); None means
            ``HeNormal(1 / sqrt(2))``, as in Chainer.
        initial_bias: Initializer of ``b`` (shape ``(c_M * in_channels,)``); None means zeros.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.
    """

    def __init__(self, in_channels: int | None, channel_multiplier: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        self.ksize = ksize
        self.stride = as_pair(stride)
        self.pad = as_pair(pad)
        self.channel_multiplier = channel_multiplier
        self.nobias = nobias
        if initialW is None:
            initialW = initializers.HeNormal(1.0 / numpy.sqrt(2))
        self._add_weight(initialW)
        self._add_bias(nobias, initial_bias)
        if in_channels is not None:
            self._initialize_params(in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = as_pair(self.ksize)
        self.W.initialize((self.channel_multiplier, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize(self.channel_multiplier * in_channels)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolution; initializes the parameters from ``x`` if needed.

        Args:
            x: Input of shape ``(n, in_channels, h, w)``.

        Returns:
            The output, of shape ``(n, channel_multiplier * in_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return depthwise_convolution_2d(x, self.W, self.b, self.stride, self.pad)
