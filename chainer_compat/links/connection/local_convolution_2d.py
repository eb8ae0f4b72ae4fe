"""``LocalConvolution2D``: the locally connected 2-D layer, holding one filter bank per output
position.

Layer 8: imports functions, initializers, link, variable and the connection links' private
helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import initializers, link, variable
from chainer_compat.functions.connection.local_convolution_2d import local_convolution_2d
from chainer_compat.links.connection._conv_base import as_pair

__all__ = ["LocalConvolution2D"]


class LocalConvolution2D(link.Link):
    """A locally connected 2-D layer: :func:`~chainer_compat.functions.local_convolution_2d`
    with its own filters ``W`` and bias ``b``.

    The output size is ``(h - k_H) // s_Y + 1`` by ``(w - k_W) // s_X + 1`` (no padding), so
    the parameters depend on the input size; when ``in_channels`` or ``in_size`` is None they
    are created on the first call, from the input.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call.
        out_channels: Number of output channels.
        in_size: Input height and width, ``k`` or ``(h, w)``, or None to infer them.
        ksize: Filter size ``k`` or ``(k_H, k_W)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        nobias: If True, the layer has no bias and ``b`` is None.
        initialW: Initializer of ``W`` (shape ``(c_O, h_O, w_O, c_I, k_H, k_W)``); None for
            ``LeCunNormal()``.
        initial_bias: Initializer of ``b`` (shape ``(c_O, h_O, w_O)``); None for zeros.
        kwargs: Ignored.

    Compat: Chainer sizes the parameters as if ``stride`` were 1, which makes a layer with a
    larger stride fail on inputs of ``in_size``; here the output size counts the stride, so
    such a layer works and its ``W`` and ``b`` are smaller than Chainer's.

    Attributes:
        W: The filter parameter.
        b: The bias parameter, or None when ``nobias`` is True.
    """

    W: variable.Parameter
    b: variable.Parameter | None

    def __init__(self, in_channels: int | None, out_channels: int, in_size: Any = None,
                 ksize: Any = None, stride: Any = 1, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None, **kwargs: Any) -> None:
        # compat: Chainer accepts and ignores any other keyword argument.
        del kwargs
        super().__init__()
        self.ksize = ksize
        self.stride = as_pair(stride)
        self.nobias = nobias
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if nobias:
                self.b = None
            else:
                bias_init = 0 if initial_bias is None else initial_bias
                self.b = variable.Parameter(initializers._get_initializer(bias_init))
            if in_channels is not None and in_size is not None:
                self._initialize_params(in_channels, as_pair(in_size))

    def _initialize_params(self, in_channels: int, in_size: Any) -> None:
        """Creates ``W`` and ``b`` for inputs of ``in_channels`` channels and ``in_size``."""
        kh, kw = as_pair(self.ksize)
        in_h, in_w = as_pair(in_size)
        sy, sx = self.stride
        out_h = (in_h - kh) // sy + 1
        out_w = (in_w - kw) // sx + 1
        self.W.initialize((self.out_channels, out_h, out_w, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize((self.out_channels, out_h, out_w))

    def forward(self, x: Any) -> variable.Variable:
        """Applies the layer.

        Args:
            x: Input images ``(n, c_I, h, w)``.

        Returns:
            The output ``(n, c_O, h_O, w_O)``.
        """
        if self.W.array is None:
            self._initialize_params(x.shape[1], x.shape[2:])
        return local_convolution_2d(x, self.W, self.b, self.stride)
