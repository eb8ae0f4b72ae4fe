"""``ResNet50Layers``, ``ResNet101Layers``, ``ResNet152Layers``: MSRA's ImageNet residual
networks, their ``BuildingBlock``/``BottleneckA``/``BottleneckB`` parts and ``prepare``.

Layer 8: imports functions, initializers, links and the shared ``_imagenet`` helpers.
"""

from __future__ import annotations

import collections
import functools
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
from chainer_compat.link import Chain, Link
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
            loads ``ResNet-<n_layers>-model.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``, first converting it from that
            caffemodel (a path relative to that directory) if it is missing; another path
            loads that npz; None initializes filters with ``HeNormal(scale=1.0)``.
        n_layers: 50, 101 or 152.
        downsample_fb: False downsamples with stride 2 in the first 1x1 convolution of each
            stage (MSRA's ResNet); True in its 3x3 convolution (Facebook's ResNet).

    Raises:
        ValueError: If ``n_layers`` is not 50, 101 or 152.
        FileNotFoundError: If a caffemodel is named and neither it nor the converted npz
            exists.

    See: K. He et al., `Deep Residual Learning for Image Recognition
    <https://arxiv.org/abs/1512.03385>`_.
    """

    def __init__(self, pretrained_model: str | None, n_layers: int,
                 downsample_fb: bool = False) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(f"n_layers must be 50, 101 or 152, got {n_layers}")
        files = None
        if pretrained_model and pretrained_model.endswith(".caffemodel"):
            # compat: Chainer names the npz after the depth, whatever the caffemodel is called,
            # and looks for the caffemodel relative to its model directory.
            directory = download.get_dataset_directory(_imagenet.MODEL_DIRECTORY)
            caffemodel = os.path.join(directory, pretrained_model)
            files = _imagenet.find_pretrained(
                pretrained_model, f"ResNet-{n_layers}-model.npz", caffemodel,
                f"download the caffemodel from {_CAFFEMODEL_SOURCE} and put it at "
                f"{caffemodel}.",
                f"ResNetLayers.convert_caffemodel_to_npz(caffemodel, npz, n_layers={n_layers})")
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
        if files is not None:
            _imagenet.load_pretrained(self, files, functools.partial(
                ResNetLayers.convert_caffemodel_to_npz, n_layers=n_layers))
        elif pretrained_model:
            npz.load_npz(pretrained_model, self)

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

        Each Caffe convolution ``res<stage><block>_branch<part>`` with its BatchNorm
        (``bn...``, the running statistics) and Scale (``scale...``, gamma and beta) layers
        becomes a convolution and a BatchNormalization of this model; ``conv1``,
        ``bn_conv1``, ``scale_conv1`` and ``fc1000`` become ``conv1``, ``bn1`` and ``fc6``.

        Args:
            path_caffemodel: Path of ``ResNet-<n_layers>-model.caffemodel``.
            path_npz: Path of the npz to write (uncompressed).
            n_layers: The depth of the caffemodel: 50, 101 or 152.

        Raises:
            ValueError: If ``n_layers`` is not 50, 101 or 152, or a layer's parameters do not
                have this network's shape.
            AttributeError: If a layer the network needs is not in the caffemodel.
            ImportError: If protobuf, which the Caffe reader needs, is not installed.

        Compat:
            Called on ``ResNet50Layers`` and the other fixed-depth classes, whose constructors
            take no ``n_layers``, it converts as on ``ResNetLayers`` (Chainer raises
            TypeError). The caffemodels of ResNet-101 and 152 have no bias in ``conv1``, so
            the npz keeps ``conv1/b`` at zero, as Chainer's does.
        """
        if n_layers not in _BLOCKS:
            raise ValueError(f"n_layers must be 50, 101 or 152, got {n_layers}")
        caffemodel = _imagenet.read_caffemodel(path_caffemodel)
        model_class = ResNetLayers if issubclass(cls, _FixedDepthResNet) else cls
        model = model_class(pretrained_model=None, n_layers=n_layers)
        _Transfer(caffemodel, path_caffemodel, n_layers).into(model)
        npz.save_npz(path_npz, model, compression=False)


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
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``, converting
            ``ResNet-50-model.caffemodel`` there first if needed; a path ending in
            ``.caffemodel`` is converted the same way; another path loads that npz; None
            draws filters from ``HeNormal(scale=1.0)``.
        downsample_fb: Whether to downsample in the 3x3 convolutions (Facebook's ResNet).
    """

    _depth = 50


class ResNet101Layers(_FixedDepthResNet):
    """ResNet with 101 layers. See :class:`ResNetLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``ResNet-101-model.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``, converting
            ``ResNet-101-model.caffemodel`` there first if needed; a path ending in
            ``.caffemodel`` is converted the same way; another path loads that npz; None
            draws filters from ``HeNormal(scale=1.0)``.
        downsample_fb: Whether to downsample in the 3x3 convolutions (Facebook's ResNet).
    """

    _depth = 101


class ResNet152Layers(_FixedDepthResNet):
    """ResNet with 152 layers. See :class:`ResNetLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``ResNet-152-model.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``, converting
            ``ResNet-152-model.caffemodel`` there first if needed; a path ending in
            ``.caffemodel`` is converted the same way; another path loads that npz; None
            draws filters from ``HeNormal(scale=1.0)``.
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
                          DeprecationWarning, stacklevel=1)
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


# Converting MSRA's caffemodels.

def _block_suffixes(count: int, numbered: bool) -> list[str]:
    """The Caffe names of a stage's bottlenecks: a, b, c... or a, b1, b2..."""
    if numbered:
        return ["a"] + [f"b{index}" for index in range(1, count)]
    return [chr(ord("a") + index) for index in range(count)]


class _Transfer:
    """Copies the parameters of a read caffemodel into a ResNet of the same depth."""

    def __init__(self, caffemodel: Link, path_caffemodel: str, n_layers: int) -> None:
        self.caffemodel = caffemodel
        self.path_caffemodel = path_caffemodel
        self.n_layers = n_layers

    def into(self, model: ResNetLayers) -> None:
        """Fills ``model`` from the caffemodel."""
        conv1 = self._layer("conv1")
        self._copy_param(model.conv1.W, conv1.W, "conv1/W")
        if self.n_layers == 50:
            # Only ResNet-50's first convolution has a bias in MSRA's release.
            self._copy_param(model.conv1.b, conv1.b, "conv1/b")
        self._batch_norm(model.bn1, "bn_conv1", "scale_conv1")
        # ResNet-50 letters the blocks of every stage; the deeper ones number those of res3
        # and res4.
        numbered = () if self.n_layers == 50 else (3, 4)
        for stage, count in enumerate(_BLOCKS[self.n_layers], 2):
            block = getattr(model, f"res{stage}")
            suffixes = _block_suffixes(count, stage in numbered)
            for name, suffix in zip(block._forward, suffixes, strict=True):
                bottleneck = getattr(block, name)
                parts = ["2a", "2b", "2c"] + (["1"] if name == "a" else [])
                for index, part in enumerate(parts, 1):
                    branch = f"{stage}{suffix}_branch{part}"
                    source = self._layer(f"res{branch}")
                    conv = getattr(bottleneck, f"conv{index}")
                    self._copy_param(conv.W, source.W, f"res{branch}/W")
                    self._batch_norm(getattr(bottleneck, f"bn{index}"), f"bn{branch}",
                                     f"scale{branch}")
        fc = self._layer("fc1000")
        self._copy_param(model.fc6.W, fc.W, "fc1000/W")
        self._copy_param(model.fc6.b, fc.b, "fc1000/b")

    def _batch_norm(self, destination: BatchNormalization, statistics_name: str,
                    scale_name: str) -> None:
        # Caffe splits batch normalization into a BatchNorm layer (statistics) and a Scale
        # layer (learned scale and shift).
        statistics = self._layer(statistics_name)
        scale = self._layer(scale_name)
        self._copy(destination.avg_mean, statistics.avg_mean, f"{statistics_name}/avg_mean")
        self._copy(destination.avg_var, statistics.avg_var, f"{statistics_name}/avg_var")
        self._copy_param(destination.gamma, scale.W, f"{scale_name}/W")
        self._copy_param(destination.beta, scale.bias.b, f"{scale_name}/bias/b")

    def _layer(self, name: str) -> Any:
        return _imagenet.caffe_layer(self.caffemodel, name, self.path_caffemodel,
                                     f"MSRA's ResNet-{self.n_layers} caffemodel")

    def _copy(self, destination: Any, source: Any, label: str) -> None:
        _imagenet.copy_array(destination, source,
                             f"caffemodel {self.path_caffemodel} parameter {label}")

    def _copy_param(self, destination: Any, source: Any, label: str) -> None:
        self._copy(destination.array, source.array, label)
