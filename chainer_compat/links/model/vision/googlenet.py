"""``GoogLeNet``: the BVLC ImageNet network of inception modules, with its two auxiliary
classifiers, and ``prepare``.

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
from chainer_compat.functions.normalization.local_response_normalization import (
    local_response_normalization,
)
from chainer_compat.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer_compat.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer_compat.initializers.constant import Zero
from chainer_compat.initializers.uniform import LeCunUniform
from chainer_compat.links.connection.convolution_2d import Convolution2D
from chainer_compat.links.connection.inception import Inception
from chainer_compat.links.connection.linear import Linear
from chainer_compat.links.model.vision import _imagenet
from chainer_compat.serializers import npz

__all__ = ["GoogLeNet", "prepare"]

# The mean pixel BVLC subtracted, in BGR order.
_MEAN_BGR = (104.0, 117.0, 123.0)

_NPZ_NAME = "bvlc_googlenet.npz"
_CAFFEMODEL_URL = "http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel"


# compat: answers Chainer's module flag ``available`` (whether Pillow imports), checked lazily.
__getattr__ = _imagenet.module_getattr(__name__)


def prepare(image: Any, size: Sequence[int] | None = (224, 224)) -> numpy.ndarray:
    """Converts an image into an input array of GoogLeNet.

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


def _local_response_normalization(x: Any) -> Any:
    # Caffe's alpha is divided by the window size; Chainer's is not.
    return local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pooling_5x5(x: Any) -> Any:
    return average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_7x7(x: Any) -> Any:
    return average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x: Any) -> Any:
    return dropout(x, ratio=0.4)


class GoogLeNet(_imagenet.ImageNetModel):
    """GoogLeNet (Inception v1) as trained by BVLC, with its auxiliary classifiers.

    The input is a batch of 224x224 images made by :func:`prepare`. Besides the main output
    ``prob`` (softmax of ``loss3_fc``), ``forward`` can return ``loss1_fc2`` and
    ``loss2_fc2``, the auxiliary classifiers' scores computed from ``inception_4a`` and
    ``inception_4d``.

    Args:
        pretrained_model: ``'auto'`` loads ``bvlc_googlenet.npz``, the npz converted from
            BVLC's caffemodel, from ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``,
            converting the downloaded caffemodel first if needed; a path loads that npz;
            None initializes the filters outside the inception modules with
            ``LeCunUniform(scale=1.0)`` (the modules keep their default).

    Raises:
        FileNotFoundError: If ``'auto'`` finds neither the converted npz nor the caffemodel.

    Compat:
        When the npz is missing, Chainer downloads the caffemodel and converts it;
        chainer_compat converts it only if it is already in Chainer's download cache
        (``$CHAINER_DATASET_ROOT/_dl_cache``), and otherwise raises, saying where to put it.

    See: C. Szegedy et al., `Going Deeper with Convolutions
    <https://arxiv.org/abs/1409.4842>`_.
    """

    _removed_mode_keyword = "train"
    _branch_sources = {"loss1_fc2": "inception_4a", "loss2_fc2": "inception_4d"}

    def __init__(self, pretrained_model: str | None = "auto") -> None:
        super().__init__()
        files = None
        if pretrained_model == "auto":
            cache_path = _imagenet.cached_download_path(_CAFFEMODEL_URL)
            files = _imagenet.find_pretrained(
                pretrained_model, _NPZ_NAME, cache_path,
                f"download {_CAFFEMODEL_URL} and save it as {cache_path} (Chainer's download "
                f"cache names the file after the MD5 of the URL).",
                "GoogLeNet.convert_caffemodel_to_npz(caffemodel, npz)")
        # The weights are overwritten by the npz when there is one: skip the random draws.
        init = Zero() if pretrained_model else LeCunUniform(scale=1.0)
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, stride=2, pad=3, initialW=init)
            self.conv2_reduce = Convolution2D(64, 64, 1, initialW=init)
            self.conv2 = Convolution2D(64, 192, 3, stride=1, pad=1, initialW=init)
            self.inc3a = Inception(192, 64, 96, 128, 16, 32, 32)
            self.inc3b = Inception(256, 128, 128, 192, 32, 96, 64)
            self.inc4a = Inception(480, 192, 96, 208, 16, 48, 64)
            self.inc4b = Inception(512, 160, 112, 224, 24, 64, 64)
            self.inc4c = Inception(512, 128, 128, 256, 24, 64, 64)
            self.inc4d = Inception(512, 112, 144, 288, 32, 64, 64)
            self.inc4e = Inception(528, 256, 160, 320, 32, 128, 128)
            self.inc5a = Inception(832, 256, 160, 320, 32, 128, 128)
            self.inc5b = Inception(832, 384, 192, 384, 48, 128, 128)
            self.loss3_fc = Linear(1024, 1000, initialW=init)

            self.loss1_conv = Convolution2D(512, 128, 1, initialW=init)
            self.loss1_fc1 = Linear(2048, 1024, initialW=init)
            self.loss1_fc2 = Linear(1024, 1000, initialW=init)

            self.loss2_conv = Convolution2D(528, 128, 1, initialW=init)
            self.loss2_fc1 = Linear(2048, 1024, initialW=init)
            self.loss2_fc2 = Linear(1024, 1000, initialW=init)
        if files is not None:
            _imagenet.load_pretrained(self, files, GoogLeNet.convert_caffemodel_to_npz)
        elif pretrained_model:
            npz.load_npz(pretrained_model, self)

    @property
    def functions(self) -> _imagenet.LayerTable:
        """The layers in order; ``loss1_fc2`` and ``loss2_fc2`` branch off the trunk."""
        return collections.OrderedDict([
            ("conv1", [self.conv1, relu]),
            ("pool1", [_max_pooling_3x3, _local_response_normalization]),
            ("conv2_reduce", [self.conv2_reduce, relu]),
            ("conv2", [self.conv2, relu, _local_response_normalization]),
            ("pool2", [_max_pooling_3x3]),
            ("inception_3a", [self.inc3a]),
            ("inception_3b", [self.inc3b]),
            ("pool3", [_max_pooling_3x3]),
            ("inception_4a", [self.inc4a]),
            ("inception_4b", [self.inc4b]),
            ("inception_4c", [self.inc4c]),
            ("inception_4d", [self.inc4d]),
            ("inception_4e", [self.inc4e]),
            ("pool4", [_max_pooling_3x3]),
            ("inception_5a", [self.inc5a]),
            ("inception_5b", [self.inc5b]),
            ("pool5", [_average_pooling_7x7]),
            ("loss3_fc", [_dropout, self.loss3_fc]),
            ("prob", [softmax]),
            ("loss1_fc2", [_average_pooling_5x5, self.loss1_conv, relu, self.loss1_fc1, relu,
                           self.loss1_fc2]),
            ("loss2_fc2", [_average_pooling_5x5, self.loss2_conv, relu, self.loss2_fc1, relu,
                           self.loss2_fc2]),
        ])

    @staticmethod
    def _prepare(image: Any, size: Sequence[int] | None) -> numpy.ndarray:
        return prepare(image, size)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Converts BVLC's caffemodel to an npz ``pretrained_model`` accepts.

        Every convolution and fully connected layer is copied from the Caffe layer of BVLC's
        name (``conv1/7x7_s2``, ``inception_3a/1x1``, ..., ``loss3/classifier``).

        Args:
            path_caffemodel: Path of ``bvlc_googlenet.caffemodel``.
            path_npz: Path of the npz to write (uncompressed).

        Raises:
            AttributeError: If a layer the network needs is not in the caffemodel.
            ValueError: If a layer's parameters do not have this network's shape.
            ImportError: If protobuf, which the Caffe reader needs, is not installed.
        """
        caffemodel = _imagenet.read_caffemodel(path_caffemodel)
        model = cls(pretrained_model=None)
        for destination, source in _caffe_names(model):
            layer = _imagenet.caffe_layer(caffemodel, source, path_caffemodel,
                                          "BVLC's GoogLeNet caffemodel")
            for attribute in ("W", "b"):
                _imagenet.copy_array(
                    getattr(destination, attribute).array, getattr(layer, attribute).array,
                    f"caffemodel {path_caffemodel} parameter {source}/{attribute}")
        npz.save_npz(path_npz, model, compression=False)


# The Caffe layer of each inception branch, by the branch's link name in Inception.
_INCEPTION_BRANCHES = {"conv1": "1x1", "proj3": "3x3_reduce", "conv3": "3x3",
                       "proj5": "5x5_reduce", "conv5": "5x5", "projp": "pool_proj"}

# The Caffe layer of each of GoogLeNet's own links.
_OWN_LAYERS = {
    "conv1": "conv1/7x7_s2", "conv2_reduce": "conv2/3x3_reduce", "conv2": "conv2/3x3",
    "loss1_conv": "loss1/conv", "loss1_fc1": "loss1/fc", "loss1_fc2": "loss1/classifier",
    "loss2_conv": "loss2/conv", "loss2_fc1": "loss2/fc", "loss2_fc2": "loss2/classifier",
    "loss3_fc": "loss3/classifier",
}


def _caffe_names(model: GoogLeNet) -> list[tuple[Any, str]]:
    """Pairs every convolution and linear link of ``model`` with its Caffe layer's name."""
    pairs: list[tuple[Any, str]] = [(getattr(model, name), source)
                                    for name, source in _OWN_LAYERS.items()]
    for module in ("3a", "3b", "4a", "4b", "4c", "4d", "4e", "5a", "5b"):
        inception = getattr(model, f"inc{module}")
        pairs.extend((getattr(inception, branch), f"inception_{module}/{source}")
                     for branch, source in _INCEPTION_BRANCHES.items())
    return pairs
