"""``MLPConvolution2D``: a "network in network" layer, one convolution followed by 1x1
convolutions with an activation between them.

Layer 8: imports functions, link, links.connection.convolution_2d and utils.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.activation.relu import relu
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.utils import argument
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["MLPConvolution2D"]

_WSCALE = ("wscale is not supported anymore. Use conv_init and bias_init argument to change "
           "the scale of initial parameters.")


class MLPConvolutionError(AssertValueError):
    """``MLPConvolution2D`` got an empty list of output channels.

    Compat: Chainer checks this with a bare ``assert``; deriving from ``AssertionError`` too
    keeps code that caught it working.
    """


class MLPConvolution2D(link.ChainList):
    """A convolution with ``ksize`` filters followed by 1x1 convolutions (a pixel-wise MLP).

    The children ``self[0]``, ``self[1]``, ... are :class:`Convolution2D` layers; the first has
    ``out_channels[0]`` outputs and the given ``ksize``, ``stride`` and ``pad``, each next one
    maps ``out_channels[k - 1]`` to ``out_channels[k]`` channels with 1x1 filters.
    ``activation`` is applied between layers, not after the last.

    ``MLPConvolution2D(out_channels, ksize)`` infers the input channels on the first call.

    Args:
        in_channels: Number of input channels, or None to infer it. With ``ksize`` omitted, the
            two positional arguments are ``(out_channels, ksize)``.
        out_channels: Output channel counts of the layers, a non-empty sequence.
        ksize: Filter size of the first layer, ``k`` or ``(k_H, k_W)``.
        stride: Stride of the first layer.
        pad: Zero padding of the first layer.
        activation: The activation between layers.
        conv_init: Initializer of every filter (keyword only); None for ``LeCunNormal()``.
        bias_init: Initializer of every bias (keyword only); None for zeros.

    Raises:
        TypeError: For extra positional arguments (``wscale`` of old code) or unknown keywords.
        ValueError: For ``wscale=``, or an empty ``out_channels`` (also an ``AssertionError``,
            as Chainer's).
    """

    def __init__(self, in_channels: Any, out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0,
                 activation: Callable[[Any], Any] = relu, *args: Any, **kwargs: Any) -> None:
        if args:
            # compat: a seventh positional argument was wscale in Chainer v1.
            raise TypeError(_WSCALE)
        conv_init, bias_init = argument.parse_kwargs(
            kwargs, ("conv_init", None), ("bias_init", None), wscale=_WSCALE)
        if ksize is None:
            # compat: MLPConvolution2D(out_channels, ksize), as in Chainer.
            in_channels, out_channels, ksize = None, in_channels, out_channels
        channels: Sequence[int] = out_channels
        if len(channels) == 0:
            raise MLPConvolutionError(
                "out_channels must hold at least one channel count, got an empty sequence")
        layers = [Convolution2D(in_channels, channels[0], ksize, stride, pad,
                                initialW=conv_init, initial_bias=bias_init)]
        for previous, current in zip(channels, channels[1:]):
            layers.append(Convolution2D(previous, current, 1, initialW=conv_init,
                                        initial_bias=bias_init))
        super().__init__(*layers)
        self.activation = activation

    def forward(self, x: Any) -> variable.Variable:
        """Applies the layers, with the activation between each two.

        Args:
            x: Input images ``(B, C, H, W)``.

        Returns:
            The last layer's output (no activation after it).
        """
        layers = list(self)
        for layer in layers[:-1]:
            x = self.activation(layer(x))
        return layers[-1](x)
