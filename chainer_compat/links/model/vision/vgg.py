"""``VGG16Layers`` and ``VGG19Layers``: the VGG team's ImageNet networks, with ``prepare``.

Layer 8: imports functions, initializers, links.connection and the shared ``_imagenet`` helpers.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy

from chainer_compat.functions.activation.relu import relu
from chainer_compat.functions.activation.softmax import softmax
from chainer_compat.functions.noise.dropout import dropout
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.initializers.constant import Zero
from chainer_compat.initializers.normal import Normal
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.model.vision import _imagenet
from chainer_compat.serializers import npz

__all__ = ["VGG16Layers", "VGG19Layers", "VGGLayers", "prepare"]

# The mean pixel of the ILSVRC training set in BGR order, as the VGG team subtracted it.
_MEAN_BGR = (103.939, 116.779, 123.68)

# Each stage: (input channels, output channels, convolutions in VGG16, in VGG19).
_STAGES = ((3, 64, 2, 2), (64, 128, 2, 2), (128, 256, 3, 4), (256, 512, 3, 4), (512, 512, 3, 4))

_CAFFEMODELS = {
    16: ("VGG_ILSVRC_16_layers.npz",
         "https://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"
         "VGG_ILSVRC_16_layers.caffemodel"),
    19: ("VGG_ILSVRC_19_layers.npz",
         "http://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"
         "VGG_ILSVRC_19_layers.caffemodel"),
}


# compat: answers Chainer's module flag ``available`` (whether Pillow imports), checked lazily.
__getattr__ = _imagenet.module_getattr(__name__)


def prepare(image: Any, size: Sequence[int] | None = (224, 224)) -> numpy.ndarray:
    """Converts an image into an input array of the VGG models.

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


def _max_pooling_2x2(x: Any) -> Any:
    return max_pooling_2d(x, ksize=2)


# compat: Chainer's private name for the same pooling, which cvmodelz imports from here.
_max_pooling_2d = _max_pooling_2x2


class VGGLayers(_imagenet.ImageNetModel):
    """The VGG network of 16 or 19 weight layers; use ``VGG16Layers`` or ``VGG19Layers``.

    The pretrained weights are released by the VGG team under the Creative Commons
    Attribution License.

    Args:
        pretrained_model: ``'auto'`` loads the npz converted from the VGG team's caffemodel,
            ``VGG_ILSVRC_<n>_layers.npz`` in ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``,
            converting the downloaded caffemodel first if needed; a path loads that npz; None
            initializes filters with ``Normal(0.01)`` and biases with zeros, as in the paper.
        n_layers: 16 or 19.

    Raises:
        ValueError: If ``n_layers`` is neither 16 nor 19.
        FileNotFoundError: If ``'auto'`` finds neither the converted npz nor the caffemodel.

    Compat:
        When the npz is missing, Chainer downloads the caffemodel and converts it;
        chainer_compat converts it only if it is already in Chainer's download cache
        (``$CHAINER_DATASET_ROOT/_dl_cache``), and otherwise raises, saying where to put it.

    See: K. Simonyan and A. Zisserman, `Very Deep Convolutional Networks for Large-Scale Image
    Recognition <https://arxiv.org/abs/1409.1556>`_.
    """

    _extract_layers = ("fc7",)

    def __init__(self, pretrained_model: str | None = "auto", n_layers: int = 16) -> None:
        super().__init__()
        if n_layers not in _CAFFEMODELS:
            raise ValueError(f"n_layers must be 16 or 19, got {n_layers}")
        files = None
        if pretrained_model == "auto":
            npz_name, url = _CAFFEMODELS[n_layers]
            cache_path = _imagenet.cached_download_path(url)
            files = _imagenet.find_pretrained(
                pretrained_model, npz_name, cache_path,
                f"download {url} and save it as {cache_path} (Chainer's download cache names "
                f"the file after the MD5 of the URL).",
                f"{type(self).__name__}.convert_caffemodel_to_npz(caffemodel, npz)")
        if pretrained_model:
            # The weights are overwritten by the npz, so skip the costly random draws.
            init: dict[str, Any] = {"initialW": Zero(), "initial_bias": Zero()}
        else:
            init = {"initialW": Normal(0.01), "initial_bias": Zero()}
        deep = n_layers == 19
        with self.init_scope():
            # compat: Chainer registers the fourth convolutions of VGG19 after fc8.
            for stage, (in_channels, out_channels, count16, _) in enumerate(_STAGES, 1):
                for index in range(1, count16 + 1):
                    source = in_channels if index == 1 else out_channels
                    conv = Convolution2D(source, out_channels, 3, 1, 1, **init)
                    setattr(self, f"conv{stage}_{index}", conv)
            self.fc6 = Linear(512 * 7 * 7, 4096, **init)
            self.fc7 = Linear(4096, 4096, **init)
            self.fc8 = Linear(4096, 1000, **init)
            if deep:
                for stage, (_, out_channels, count16, count19) in enumerate(_STAGES, 1):
                    for index in range(count16 + 1, count19 + 1):
                        conv = Convolution2D(out_channels, out_channels, 3, 1, 1, **init)
                        setattr(self, f"conv{stage}_{index}", conv)
        if files is not None:
            _imagenet.load_pretrained(self, files, VGGLayers.convert_caffemodel_to_npz)
        elif pretrained_model:
            npz.load_npz(pretrained_model, self)

    @staticmethod
    def _prepare(image: Any, size: Sequence[int] | None) -> numpy.ndarray:
        return prepare(image, size)

    def _layer_table(self, n_layers: int) -> _imagenet.LayerTable:
        table: _imagenet.LayerTable = collections.OrderedDict()
        for stage, stage_spec in enumerate(_STAGES, 1):
            count = stage_spec[2] if n_layers == 16 else stage_spec[3]
            for index in range(1, count + 1):
                table[f"conv{stage}_{index}"] = [getattr(self, f"conv{stage}_{index}"), relu]
            table[f"pool{stage}"] = [_max_pooling_2x2]
        table["fc6"] = [self.fc6, relu, dropout]
        table["fc7"] = [self.fc7, relu, dropout]
        table["fc8"] = [self.fc8]
        table["prob"] = [softmax]
        return table

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Converts the VGG team's caffemodel to an npz ``pretrained_model`` accepts.

        As in Chainer, the npz holds the parameters of every Caffe layer under the layer's
        name (``conv1_1/W``, ..., ``fc8/b``), which are the names of this model's links.

        Args:
            path_caffemodel: Path of ``VGG_ILSVRC_16_layers.caffemodel`` or
                ``VGG_ILSVRC_19_layers.caffemodel``.
            path_npz: Path of the npz to write (uncompressed).

        Raises:
            ImportError: If protobuf, which the Caffe reader needs, is not installed.
        """
        caffemodel = _imagenet.read_caffemodel(path_caffemodel)
        npz.save_npz(path_npz, caffemodel, compression=False)


class _FixedDepthVGG(VGGLayers):
    """A :class:`VGGLayers` of the depth in ``_depth``, with its table of layers."""

    _depth: int

    def __init__(self, pretrained_model: str | None = "auto") -> None:
        super().__init__(pretrained_model, self._depth)

    @property
    def functions(self) -> _imagenet.LayerTable:
        """The layers in order, from ``conv1_1`` to ``prob``."""
        return self._layer_table(self._depth)


class VGG16Layers(_FixedDepthVGG):
    """VGG with 16 weight layers (13 convolutions and 3 fully connected layers).

    The input is a batch of 224x224 images made by :func:`prepare`. See :class:`VGGLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``VGG_ILSVRC_16_layers.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``, converting the cached caffemodel
            first if needed (see :class:`VGGLayers`); a path loads that npz; None draws
            filters from ``Normal(0.01)``.
    """

    _depth = 16


class VGG19Layers(_FixedDepthVGG):
    """VGG with 19 weight layers (16 convolutions and 3 fully connected layers).

    The input is a batch of 224x224 images made by :func:`prepare`. See :class:`VGGLayers`.

    Args:
        pretrained_model: ``'auto'`` loads ``VGG_ILSVRC_19_layers.npz`` from
            ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``, converting the cached caffemodel
            first if needed (see :class:`VGGLayers`); a path loads that npz; None draws
            filters from ``Normal(0.01)``.
    """

    _depth = 19
