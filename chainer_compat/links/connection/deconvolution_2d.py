"""``Deconvolution2D``: the 2-D transposed-convolution layer, whose input channel count may be
inferred from the first input.

Layer 8: imports backend, functions, utils, variable and the connection links' private helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.functions.connection.convolution_2d import _DETERMINISTIC
from chainer_compat.functions.connection.deconvolution_2d import deconvolution_2d
from chainer_compat.links.connection._conv_base import as_pair, check_groups
from chainer_compat.links.connection._weight_link import WeightLink
from chainer_compat.utils import argument
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["Deconvolution2D"]


class Deconvolution2D(WeightLink):
    """A 2-D deconvolution layer: :func:`~chainer_compat.functions.deconvolution_2d` with its
    own filters ``W`` and bias ``b``.

    ``Deconvolution2D(out_channels, ksize)`` (or ``in_channels=None``) leaves ``W``
    uninitialized until the first call, which reads the channel count from the input.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call. With
            ``ksize`` omitted, the two positional sizes are ``(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Padding ``p`` or ``(p_H, p_W)`` cropped from the output.
        nobias: If True, the layer has no bias and ``b`` is None.
        outsize: Output size ``(h_O, w_O)``, or None to compute it from the input.
        initialW: Initializer of ``W`` (shape ``(in_channels, out_channels / groups, k_H,
            k_W)``): an initializer, a scalar, an array or None for ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(out_channels,)``); None means zeros.
        dilate: Dilation ``d`` or ``(d_Y, d_X)``.
        groups: Number of channel groups; must divide both channel counts.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.

    Raises:
        ValueError: If ``groups`` does not divide a channel count, if an array ``initial_bias``
            is not of shape ``(out_channels,)``, or for ``deterministic=``.
        TypeError: For any other unknown keyword argument.
    """

    def __init__(self, in_channels: int | None, out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, outsize: Any = None,
                 initialW: Any = None, initial_bias: Any = None, *, dilate: Any = 1,
                 groups: int = 1, **kwargs: Any) -> None:
        super().__init__()
        argument.parse_kwargs(kwargs, deterministic=_DETERMINISTIC)
        if ksize is None:
            # compat: Deconvolution2D(out_channels, ksize), as in Chainer.
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.ksize = ksize
        self.stride = as_pair(stride)
        self.pad = as_pair(pad)
        self.dilate = as_pair(dilate)
        self.outsize = (None, None) if outsize is None else outsize
        self.out_channels = out_channels
        self.groups = int(groups)
        self._add_weight(initialW, in_channels)
        if (not nobias and backend.is_array(initial_bias)
                and tuple(initial_bias.shape) != (out_channels,)):
            # compat: Chainer checks array biases after W (NOTE [bare asserts]).
            raise AssertValueError(
                f"initial_bias must have shape ({out_channels},), got "
                f"{tuple(initial_bias.shape)}; pass one value per output channel")
        self._add_bias(nobias, initial_bias, out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = as_pair(self.ksize)
        check_groups(in_channels, self.out_channels, self.groups)
        self.W.initialize((in_channels, self.out_channels // self.groups, kh, kw))

    def forward(self, x: Any) -> variable.Variable:
        """Applies the deconvolution; initializes ``W`` from ``x``'s channel count if needed.

        Args:
            x: Input of shape ``(n, in_channels, h, w)``.

        Returns:
            The output, of shape ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return deconvolution_2d(x, self.W, self.b, self.stride, self.pad, self.outsize,
                                dilate=self.dilate, groups=self.groups)
