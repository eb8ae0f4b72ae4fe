"""``DilatedConvolution2D``: the 2-D dilated convolution layer, whose input channel count may be
inferred from the first input.

Layer 8: imports functions, variable and the connection links' private helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from chainer_compat.links.connection._conv_base import as_pair
from chainer_compat.links.connection._weight_link import WeightLink

__all__ = ["DilatedConvolution2D"]


class DilatedConvolution2D(WeightLink):
    """A 2-D dilated convolution layer: :func:`~chainer_compat.functions.dilated_convolution_2d`
    with its own filters ``W`` and bias ``b``.

    ``DilatedConvolution2D(out_channels, ksize)`` (or ``in_channels=None``) leaves ``W``
    uninitialized until the first call, which reads the channel count from the input.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call. With
            ``ksize`` omitted, the two positional sizes are ``(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.
        dilate: Dilation ``d`` or ``(d_Y, d_X)``.
        nobias: If True, the layer has no bias and ``b`` is None.
        initialW: Initializer of ``W`` (shape ``(out_channels, in_channels, k_H, k_W)``);
            None means ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(out_channels,)``); None means zeros.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.
    """

    def __init__(self, in_channels: int | None, out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, dilate: Any = 1, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        if ksize is None:
            # compat: DilatedConvolution2D(out_channels, ksize), as in Chainer.
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.ksize = ksize
        self.stride = as_pair(stride)
        self.pad = as_pair(pad)
        self.dilate = as_pair(dilate)
        self.out_channels = out_channels
        self._add_weight(initialW, in_channels)
        self._add_bias(nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = as_pair(self.ksize)
        self.W.initialize((self.out_channels, in_channels, kh, kw))

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolution; initializes ``W`` from ``x``'s channel count if needed.

        Args:
            x: Input of shape ``(n, in_channels, h, w)``.

        Returns:
            The output, of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return dilated_convolution_2d(x, self.W, self.b, self.stride, self.pad, self.dilate)
