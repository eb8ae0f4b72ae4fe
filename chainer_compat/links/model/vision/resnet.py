"""``ResNet50Layers``, ``ResNet101Layers``, ``ResNet152Layers``: MSRA's ImageNet residual
networks, their ``BuildingBlock``/``BottleneckA``/``BottleneckB`` parts and ``prepare``.

Layer 8: imports functions, initializers, links and the shared ``_imagenet`` helpers.
"""

from __future__ import annotations

import collections
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat.dataset import download
from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.activation.softmax import softmax
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.initializers.constant import Zero
from chainer_compat.initializers.normal import HeNormal
from chainer_compat.link import Chain
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.model.vision import _imagenet
from chainer_compat.links.normalization.batch_normalization import BatchNormalization
from chainer_compat.serializers import npz

__all__ = [
    "BottleneckA", "BottleneckB", "BuildingBlock", "ResNet101Layers", "ResNet152Layers",
    "ResNet50Layers", "ResNetLayers", "prepare",
]

# The mean pixel of the ILSVRC training set in BGR order, as MSRA subtracted it.
_MEAN_BGR = (103.063, 115.903, 123.152)

# Bottlenecks in each of the four stages res2..res5, by depth.
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}

_CAFFEMODEL_SOURCE = "https://github.com/KaimingHe/deep-residual-networks"


# compat: answers Chainer's module flag ``available`` (whether Pillow imports), checked lazily.
__getattr__ = _imagenet.module_getattr(__name__)


def prepare(image: Any, size: Sequence[int] | None = (224, 224)) -> numpy.ndarray:
    """Converts an image into an input array of the ResNet models.

    It resizes the image, reorders RGB to BGR, subtracts the training mean and moves channels
    first.

    Args:
        image: A ``PIL.Image``, or a uint8-valued RGB array shaped ``(H, W)``, ``(H, W, C)``,
            ``(1, H, W)`` or ``(3, H, W)``.
        size: ``(width, height)`` of the result, or None to keep the image's size.

    Returns:
        A ``(3, H, W)`` array of the default dtype.

    Raises:
        ImportError: If Pillow is not installed.
    """
    return _imagenet.prepare_image(image, size, _MEAN_BGR)


def _max_pooling_3x3(x: Any) -> Any:
    return max_pooling_2d(x, ksize=3, stride=2)


def _global_average_pooling_2d(x: Any) -> Any:
    batch, channels, height, width = x.shape
    return reshape(average_pooling_2d(x, (height, width), stride=1), (batch, channels))


class ResNetLayers(_imagenet.ImageNetModel):
    """A residual network of 50, 101 or 152 layers; use ``ResNet50Layers`` and the others.

    Args:
        pretrained_model: A path ending in ``.caffemodel`` (``'auto'`` in the subclasses)
            loads ``ResNet-<n_layers>-model.npz``, the npz Chainer converted from that
            caffemodel, from ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``; another path
            loads that npz; None initializes filters with ``HeNormal(scale=1.0)``.
        n_layers: 50, 101 or 152.
        downsample_fb: False downsamples with stride 2 in the first 1x1 convolution of each
            stage (MSRA's ResNet); True in its 3x3 convolution (Facebook's ResNet).

    Raises:
        ValueError: If ``n_layers`` is not 50, 101 or 152.
        FileNotFoundError: If a caffemodel is named and no converted npz exists.

    Compat:
        Chainer converts the caffemodel when the npz is missing; chainer_compat has no Caffe
        reader and raises instead, saying where to put the npz.

    See: K. He et al., `Deep Residual Learning for Image Recognition
    <https://arxiv.org/abs/1512.03385>`_.
    """

    def __init__(self, pretrained_model: str | None, n_layers: int,
                 downsample_fb: bool = False) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(f"n_layers must be 50, 101 or 152, got {n_layers}")
        path = pretrained_model
        if pretrained_model and pretrained_model.endswith(".caffemodel"):
            # compat: Chainer names the npz after the depth, whatever the caffemodel is called.
            directory = download.get_dataset_directory(_imagenet.MODEL_DIRECTORY)
            caffemodel = os.path.join(directory, pretrained_model)
            path = _imagenet.find_converted_npz(
                type(self).__name__, f"ResNet-{n_layers}-model.npz",
                f"{caffemodel}, from {_CAFFEMODEL_SOURCE}")
        # The weights are overwritten by the npz when there is one: skip the random draws.
        conv_init = Zero() if pretrained_model else HeNormal(scale=1.0)
        blocks = _BLOCKS[n_layers]
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, 2, 3, initialW=conv_init)
            self.bn1 = BatchNormalization(64)
            self.res2 = BuildingBlock(blocks[0], 64, 64, 256, 1, conv_init, downsample_fb)
            self.res3 = BuildingBlock(blocks[1], 256, 128, 512, 2, conv_init, downsample_fb)
            self.res4 = BuildingBlock(blocks[2], 512, 256, 1024, 2, conv_init, downsample_fb)
            self.res5 = BuildingBlock(blocks[3], 1024, 512, 2048, 2, conv_init, downsample_fb)
            self.fc6 = Linear(2048, 1000)
        if path:
            npz.load_npz(path, self)

    @property
    def functions(self) -> _imagenet.LayerTable:
        """The layers in order, from ``conv1`` to ``prob``."""
        return collections.OrderedDict([
            ("conv1", [self.conv1, self.bn1, relu]),
            ("pool1", [_max_pooling_3x3]),
            ("res2", [self.res2]),
            ("res3", [self.res3]),
            ("res4", [self.res4]),
            ("res5", [self.res5]),
            ("pool5", [_global_average_pooling_2d]),
            ("fc6", [self.fc6]),
            ("prob", [softmax]),
        ])

    @staticmethod
    def _prepare(image: Any, size: Sequence[int] | None) -> numpy.ndarray:
        return prepare(image, size)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str,
                                  n_layers: int = 50) -> None:
        """Converts MSRA's caffemodel to an npz ``pretrained_model`` accepts.

        Raises:
            NotImplementedError: Always: chainer_compat has no Caffe reader; run this
                method under Chainer 7.8.1.
        """
        raise _imagenet.caffe_unsupported(cls.__name__)


class _FixedDepthResNet(ResNetLayers):
    """A :class:`ResNetLayers` of the depth in ``_depth``, whose ``'auto'`` names MSRA's
    caffemodel of that depth."""

    _depth: int

    def __init__(self, pretrained_model: str | None = "auto", downsample_fb: bool = False) -> None:
        if pretrained_model == "auto":
            pretrained_model = f"ResNet-{self._depth}-model.caffemodel"
        super().__init__(pretrained_model, self._depth, downsample_fb)


class ResNet50Layers(_FixedDepthResNet):
    """ResNet with 50 layers. See :class:`ResNetLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``ResNet-50-model.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``; a path loads that npz; None draws
            filters from ``HeNormal(scale=1.0)``.
        downsample_fb: Whether to downsample in the 3x3 convolutions (Facebook's ResNet).
    """

    _depth = 50


class ResNet101Layers(_FixedDepthResNet):
    """ResNet with 101 layers. See :class:`ResNetLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``ResNet-101-model.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``; a path loads that npz; None draws
            filters from ``HeNormal(scale=1.0)``.
        downsample_fb: Whether to downsample in the 3x3 convolutions (Facebook's ResNet).
    """

    _depth = 101


class ResNet152Layers(_FixedDepthResNet):
    """ResNet with 152 layers. See :class:`ResNetLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``ResNet-152-model.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``; a path loads that npz; None draws
            filters from ``HeNormal(scale=1.0)``.
        downsample_fb: Whether to downsample in the 3x3 convolutions (Facebook's ResNet).
    """

    _depth = 152


class BuildingBlock(Chain):
    """One ResNet stage: a ``BottleneckA`` named ``a``, then ``BottleneckB``s ``b1``, ``b2``...

    Args:
        n_layers: Number of bottlenecks (``a`` is always built).
        in_channels: Input channels.
        mid_channels: Channels inside each bottleneck.
        out_channels: Output channels.
        stride: Stride of the stage's downsampling convolution.
        initialW: Initializer of every filter; None for the default (``LeCunNormal``).
        downsample_fb: Whether to downsample in the 3x3 convolution instead of the 1x1.
        **kwargs: ``n_layer``, the deprecated name of ``n_layers``.
    """

    def __init__(self, n_layers: int | None = None, in_channels: int | None = None,
                 mid_channels: int | None = None, out_channels: int | None = None,
                 stride: int | None = None, initialW: Any = None,
                 downsample_fb: bool | None = None, **kwargs: Any) -> None:
        super().__init__()
        if "n_layer" in kwargs:
            warnings.warn("Argument `n_layer` is deprecated. Please use `n_layers` instead",
                          DeprecationWarning, stacklevel=2)
            n_layers = kwargs["n_layer"]
        if n_layers is None:
            raise TypeError("n_layers must be an int, got None: pass the number of bottlenecks")
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW,
                                 downsample_fb)
            # compat: Chainer keeps the bottleneck names in call order as ``_forward``.
            self._forward = ["a"]
            for index in range(1, n_layers):
                name = f"b{index}"
                setattr(self, name, BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(name)

    def forward(self, x: Any) -> Any:
        """Applies the bottlenecks in order."""
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


class BottleneckA(Chain):
    """A bottleneck that changes the channel count (and resolution) and projects the shortcut.

    ``relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x)))))))) + bn4(conv4(x)))``, where
    ``conv1`` and ``conv3`` are 1x1, ``conv2`` 3x3 and ``conv4`` the 1x1 projection, all
    without bias.

    Args:
        in_channels: Input channels.
        mid_channels: Channels of ``conv1`` and ``conv2``.
        out_channels: Output channels.
        stride: The downsampling stride.
        initialW: Initializer of every filter.
        downsample_fb: False puts the stride on ``conv1`` (MSRA), True on ``conv2`` (Facebook).
    """

    def __init__(self, in_channels: int | None, mid_channels: int | None,
                 out_channels: int | None, stride: int | None = 2, initialW: Any = None,
                 downsample_fb: bool | None = False) -> None:
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, mid_channels, 1, stride_1x1, 0,
                                       initialW=initialW, nobias=True)
            self.bn1 = BatchNormalization(mid_channels)
            self.conv2 = Convolution2D(mid_channels, mid_channels, 3, stride_3x3, 1,
                                       initialW=initialW, nobias=True)
            self.bn2 = BatchNormalization(mid_channels)
            self.conv3 = Convolution2D(mid_channels, out_channels, 1, 1, 0,
                                       initialW=initialW, nobias=True)
            self.bn3 = BatchNormalization(out_channels)
            self.conv4 = Convolution2D(in_channels, out_channels, 1, stride, 0,
                                       initialW=initialW, nobias=True)
            self.bn4 = BatchNormalization(out_channels)

    def forward(self, x: Any) -> Any:
        """Returns the block's output for ``x``."""
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu(h + self.bn4(self.conv4(x)))


class BottleneckB(Chain):
    """A bottleneck that keeps shape, with an identity shortcut.

    ``relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x)))))))) + x)``, where ``conv1`` and
    ``conv3`` are 1x1 and ``conv2`` 3x3, all without bias.

    Args:
        in_channels: Input (and output) channels.
        mid_channels: Channels of ``conv1`` and ``conv2``.
        initialW: Initializer of every filter.
    """

    def __init__(self, in_channels: int | None, mid_channels: int | None,
                 initialW: Any = None) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, mid_channels, 1, 1, 0,
                                       initialW=initialW, nobias=True)
            self.bn1 = BatchNormalization(mid_channels)
            self.conv2 = Convolution2D(mid_channels, mid_channels, 3, 1, 1,
                                       initialW=initialW, nobias=True)
            self.bn2 = BatchNormalization(mid_channels)
            self.conv3 = Convolution2D(mid_channels, in_channels, 1, 1, 0,
                                       initialW=initialW, nobias=True)
            self.bn3 = BatchNormalization(in_channels)

    def forward(self, x: Any) -> Any:
        """Returns the block's output for ``x``."""
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        return relu(self.bn3(self.conv3(h)) + x)
