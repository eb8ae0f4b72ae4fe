"""``DeformableConvolution2D``: a convolution that predicts its own sampling offsets with a
second convolution, and the sampler link that holds the deformed filters.

Layer 8: imports functions, link, links.connection.convolution_2d, variable and the connection
links' private helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from chainer_compat.links.connection._conv_base import as_pair
from chainer_compat.links.connection._weight_link import WeightLink
from chainer_compat.links.connection.convolution_2d import Convolution2D

__all__ = ["DeformableConvolution2D", "DeformableConvolution2DSampler"]


class DeformableConvolution2D(link.Chain):
    """A deformable 2-D convolution layer.

    ``offset_conv`` (a :class:`Convolution2D` with ``2 k_H k_W`` outputs and the same
    ``ksize``, ``stride`` and ``pad``) predicts the offsets from the input, and
    ``deform_conv`` (a :class:`DeformableConvolution2DSampler`) applies
    :func:`~chainer_compat.functions.deformable_convolution_2d_sampler` with them.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.
        offset_nobias: If True, ``offset_conv`` has no bias.
        offset_initialW: Initializer of ``offset_conv.W``; None for ``LeCunNormal()``.
        offset_initial_bias: Initializer of ``offset_conv.b``; None for zeros.
        deform_nobias: If True, ``deform_conv`` has no bias.
        deform_initialW: Initializer of ``deform_conv.W``; None for zeros (as in Chainer).
        deform_initial_bias: Initializer of ``deform_conv.b``; None for zeros.

    See: `Deformable Convolutional Networks <https://arxiv.org/abs/1703.06211>`_.
    """

    offset_conv: Convolution2D
    deform_conv: DeformableConvolution2DSampler

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, offset_nobias: bool = False,
                 offset_initialW: Any = None, offset_initial_bias: Any = None,
                 deform_nobias: bool = False, deform_initialW: Any = None,
                 deform_initial_bias: Any = None) -> None:
        super().__init__()
        kh, kw = as_pair(ksize)
        with self.init_scope():
            self.offset_conv = Convolution2D(
                in_channels, 2 * kh * kw, ksize, stride, pad, offset_nobias,
                offset_initialW, offset_initial_bias)
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels, out_channels, ksize, stride, pad, deform_nobias,
                deform_initialW, deform_initial_bias)

    def forward(self, x: Any) -> variable.Variable:
        """Predicts the offsets from ``x``, then applies the deformed convolution to ``x``.

        Args:
            x: Input images ``(n, c_I, h, w)``.

        Returns:
            The output ``(n, out_channels, h_O, w_O)``.
        """
        return self.deform_conv(x, self.offset_conv(x))


class DeformableConvolution2DSampler(WeightLink):
    """The filters ``W`` and bias ``b`` of a deformable convolution, applied with given offsets.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.
        nobias: If True, the link has no bias and ``b`` is None.
        initialW: Initializer of ``W`` ``(c_O, c_I, k_H, k_W)``; None for zeros.
        initial_bias: Initializer of ``b``; None for zeros.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.
    """

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        self.ksize = ksize
        self.stride = as_pair(stride)
        self.pad = as_pair(pad)
        self.out_channels = out_channels
        self.initialW = initialW
        # compat: the filters start at zero by default, unlike Convolution2D's.
        self._add_weight(0 if initialW is None else initialW)
        self._add_bias(nobias, initial_bias)
        if in_channels is not None:
            self._initialize_params(in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        """Creates ``W`` (and ``b``) for inputs of ``in_channels`` channels."""
        kh, kw = as_pair(self.ksize)
        self.W.initialize((self.out_channels, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize((self.out_channels,))

    def forward(self, x: Any, offset: Any) -> variable.Variable:
        """Applies the deformable convolution of ``x`` with ``offset``.

        Args:
            x: Input images ``(n, c_I, h, w)``.
            offset: Offsets ``(n, 2 k_H k_W, h_O, w_O)``.

        Returns:
            The output ``(n, out_channels, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return deformable_convolution_2d_sampler(
            x, offset, self.W, self.b, self.stride, self.pad)
