"""``Inception``: the GoogLeNet inception module, four parallel paths concatenated along
channels.

Layer 8: imports functions, link and links.connection.convolution_2d.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.array.concat import concat
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.links.connection.convolution_2d import Convolution2D

__all__ = ["Inception"]


class Inception(link.Chain):
    """The inception module of GoogLeNet, keeping the input's height and width.

    Four paths read the input: ``conv1`` (1x1); ``proj3`` (1x1) then ReLU then ``conv3``
    (3x3); ``proj5`` (1x1) then ReLU then ``conv5`` (5x5); and 3x3 max pooling (stride 1) then
    ``projp`` (1x1). The output is the ReLU of their concatenation along channels, with
    ``out1 + out3 + out5 + proj_pool`` channels.

    Args:
        in_channels: Number of input channels, or None to infer it on the first call.
        out1: Output channels of the 1x1 path.
        proj3: Channels of the 1x1 projection before the 3x3 convolution.
        out3: Output channels of the 3x3 path.
        proj5: Channels of the 1x1 projection before the 5x5 convolution.
        out5: Output channels of the 5x5 path.
        proj_pool: Output channels of the pooling path's 1x1 projection.
        conv_init: Initializer of every filter; None for ``LeCunNormal()``.
        bias_init: Initializer of every bias; None for zeros.

    See: `Going Deeper with Convolutions <https://arxiv.org/abs/1409.4842>`_.
    """

    conv1: Convolution2D
    proj3: Convolution2D
    conv3: Convolution2D
    proj5: Convolution2D
    conv5: Convolution2D
    projp: Convolution2D

    def __init__(self, in_channels: int | None, out1: int, proj3: int, out3: int, proj5: int,
                 out5: int, proj_pool: int, conv_init: Any = None,
                 bias_init: Any = None) -> None:
        super().__init__()
        init = {"initialW": conv_init, "initial_bias": bias_init}
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, out1, 1, **init)
            self.proj3 = Convolution2D(in_channels, proj3, 1, **init)
            self.conv3 = Convolution2D(proj3, out3, 3, pad=1, **init)
            self.proj5 = Convolution2D(in_channels, proj5, 1, **init)
            self.conv5 = Convolution2D(proj5, out5, 5, pad=2, **init)
            self.projp = Convolution2D(in_channels, proj_pool, 1, **init)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the four paths and concatenates them.

        Args:
            x: Input images ``(B, in_channels, H, W)``.

        Returns:
            ``(B, out1 + out3 + out5 + proj_pool, H, W)``.
        """
        path1 = self.conv1(x)
        path3 = self.conv3(relu(self.proj3(x)))
        path5 = self.conv5(relu(self.proj5(x)))
        pool = self.projp(max_pooling_2d(x, 3, stride=1, pad=1))
        return relu(concat((path1, path3, path5, pool), axis=1))
