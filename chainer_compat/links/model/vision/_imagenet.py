"""What the ImageNet vision models share: the layer-by-layer forward loop, ``extract`` and
``predict``, Pillow-based image preparation, ten-crop oversampling, and finding, converting
and loading the pretrained weights.

Layer 8: imports configuration, variable, functions, link, serializers, utils and
dataset.download; links.caffe only when a caffemodel is converted.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import numpy

from chainer_compat import configuration, variable
from chainer_compat.dataset import download
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.math.average import average
from chainer_compat.link import Chain, Link
from chainer_compat.serializers import npz
from chainer_compat.utils import argument

LayerTable = collections.OrderedDict[str, list[Callable[[Any], Any]]]

# Where Chainer keeps the npz files it converted from the published caffemodels.
MODEL_DIRECTORY = "pfnet/chainer/models/"

# Every pretrained network was trained on 224x224 crops of images resized to 256x256.
_PREDICT_SIZE = (256, 256)
_CROP_SIZE = (224, 224)

__all__ = [
    "ImageNetModel", "LayerTable", "MODEL_DIRECTORY", "PretrainedFiles", "caffe_layer",
    "cached_download_path", "copy_array", "find_pretrained", "load_pretrained", "module_getattr",
    "oversample", "pillow_available", "prepare_image", "read_caffemodel",
]


def pillow_available() -> bool:
    """Returns whether Pillow can be imported, without importing it."""
    return importlib.util.find_spec("PIL") is not None


def module_getattr(module_name: str) -> Callable[[str], Any]:
    """Returns the module ``__getattr__`` of a model module, answering ``available``.

    Compat: Chainer's model modules expose whether Pillow imported as ``available``; ours
    look it up when asked, so importing a model never imports Pillow.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - installed as the module's __getattr__
        if name == "available":
            return pillow_available()
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


def prepare_image(image: Any, size: Sequence[int] | None,
                  mean_bgr: tuple[float, float, float]) -> numpy.ndarray:
    """Turns an RGB image into the mean-subtracted BGR ``(3, H, W)`` array the models take.

    Args:
        image: A ``PIL.Image`` or a uint8-valued array shaped ``(H, W)``, ``(H, W, C)``,
            ``(1, H, W)`` or ``(3, H, W)`` with channels in RGB order.
        size: ``(width, height)`` to resize to, in Pillow's order, or None to keep the size.
        mean_bgr: The per-channel mean of the training images, in BGR order.

    Returns:
        A NumPy array of the default dtype (``chainer.config.dtype``), shaped ``(3, H, W)``.

    Raises:
        ImportError: If Pillow is not installed.
    """
    try:
        # Pillow is only needed here, so importing the models does not require it.
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            f"Pillow must be installed to prepare images, got ImportError: {error}. "
            "Install it with `pip install pillow`.") from error
    dtype = configuration.get_dtype()
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3 and image.shape[0] == 1:
            image = image[0]
        elif image.ndim == 3 and image.shape[0] == 3:
            image = image.transpose(1, 2, 0)
        image = Image.fromarray(image.astype(numpy.uint8))
    image = image.convert("RGB")
    if size:
        image = image.resize(tuple(size))
    # The networks were trained in Caffe, which reads images as BGR.
    array = numpy.asarray(image, dtype=dtype)[:, :, ::-1]
    array = array - numpy.asarray(mean_bgr, dtype=dtype)
    return numpy.ascontiguousarray(array.transpose(2, 0, 1))


def oversample(images: Any, crop_dims: Sequence[int]) -> numpy.ndarray:
    """Cuts ten crops of each image: four corners and the centre, then their mirror images.

    Args:
        images: A sequence of ``(C, H, W)`` arrays of one shape.
        crop_dims: ``(height, width)`` of each crop.

    Returns:
        An array shaped ``(10 * len(images), C, height, width)``, ten crops per image in turn.
    """
    channels, height, width = images[0].shape
    crop_height, crop_width = crop_dims
    # compat: the centre offset rounds down, as Caffe's and Chainer's oversample do.
    corners = [(0, 0), (0, width - crop_width), (height - crop_height, 0),
               (height - crop_height, width - crop_width),
               (int(height / 2.0 - crop_height / 2.0), int(width / 2.0 - crop_width / 2.0))]
    crops = numpy.empty((10 * len(images), channels, crop_height, crop_width),
                        dtype=images[0].dtype)
    for index, image in enumerate(images):
        start = 10 * index
        for offset, (top, left) in enumerate(corners):
            crops[start + offset] = image[:, top:top + crop_height, left:left + crop_width]
        crops[start + 5:start + 10] = crops[start:start + 5, :, :, ::-1]
    return crops


@dataclasses.dataclass(frozen=True)
class PretrainedFiles:
    """Where ``pretrained_model='auto'`` finds a model's weights.

    Attributes:
        npz_path: The npz Chainer converts the caffemodel to, in its model directory.
        caffemodel_path: The caffemodel converted when the npz is missing.
    """

    npz_path: str
    caffemodel_path: str


def cached_download_path(url: str) -> str:
    """Returns where ``chainer.dataset.cached_download`` keeps the file downloaded from ``url``.

    It is ``<dataset root>/_dl_cache/<MD5 hex digest of the URL>``; nothing is downloaded.
    """
    # Chainer's models fetch their caffemodels with cached_download.
    return download._cache_path(url)


def find_pretrained(pretrained_model: str, npz_name: str, caffemodel_path: str,
                    how_to_fetch: str, converter: str) -> PretrainedFiles:
    """Finds the converted npz of a model, or else the caffemodel to convert it from.

    The models call it before allocating their layers, so that missing files fail fast.

    Args:
        pretrained_model: What the user passed (``'auto'`` or a caffemodel name).
        npz_name: The npz file name Chainer uses, e.g. ``'bvlc_googlenet.npz'``.
        caffemodel_path: Where Chainer looks for (or downloads) the caffemodel.
        how_to_fetch: A sentence saying how to get the caffemodel to ``caffemodel_path``.
        converter: The call that converts the caffemodel, for the error message.

    Returns:
        Both paths; at least one of the files exists.

    Raises:
        FileNotFoundError: If neither file exists. chainer_compat never downloads, so the
            message says where to put either file.
    """
    directory = download.get_dataset_directory(MODEL_DIRECTORY)
    files = PretrainedFiles(os.path.join(directory, npz_name), caffemodel_path)
    if os.path.exists(files.npz_path) or os.path.exists(files.caffemodel_path):
        return files
    raise FileNotFoundError(
        f"pretrained_model={pretrained_model!r} must find the converted model file "
        f"{files.npz_path} or the caffemodel {files.caffemodel_path} to convert, got neither. "
        f"chainer_compat does not download: {how_to_fetch} The npz is written on first use; "
        f"{converter} makes it too. Set CHAINER_DATASET_ROOT to "
        f"move {download.get_dataset_root()}, or pass an npz path as pretrained_model.")


def load_pretrained(model: Link, files: PretrainedFiles,
                    convert: Callable[[str, str], None]) -> None:
    """Loads the converted npz into ``model``, converting the caffemodel first if it is missing.

    Args:
        model: The freshly built model.
        files: What :func:`find_pretrained` returned.
        convert: Writes the npz converted from a caffemodel: ``convert(caffemodel, npz)``.
    """

    def create(temporary_path: str) -> None:
        # compat: Chainer's notice; reading a full-size caffemodel takes a while.
        sys.stderr.write("Now loading caffemodel (usually it may take few minutes)\n")
        sys.stderr.flush()
        convert(files.caffemodel_path, temporary_path)
        npz.load_npz(temporary_path, model)

    download.cache_or_load_file(files.npz_path, create,
                                lambda path: npz.load_npz(path, model))


def read_caffemodel(path_caffemodel: str) -> Link:
    """Reads a caffemodel with :class:`~chainer_compat.links.caffe.CaffeFunction`."""
    # Imported on use: the Caffe reader is only needed to convert, and needs protobuf.
    from chainer_compat.links.caffe.caffe_function import CaffeFunction
    return CaffeFunction(path_caffemodel)


def caffe_layer(caffemodel: Link, name: str, path_caffemodel: str, expected: str) -> Any:
    """Returns the child link of a read caffemodel that holds Caffe layer ``name``.

    Raises:
        AttributeError: If there is no such layer (Chainer's type), saying which
            caffemodel was expected.
    """
    layer = getattr(caffemodel, name, None)
    if not isinstance(layer, Link):
        raise AttributeError(
            f"caffemodel {path_caffemodel} must have a layer with parameters named {name!r}, "
            f"got none: it must be {expected}")
    return layer


def copy_array(destination: Any, source: Any, label: str) -> None:
    """Copies ``source`` into ``destination`` in place; the shapes must be equal.

    Raises:
        ValueError: If the shapes differ (Chainer's type), naming ``label``.
    """
    if tuple(destination.shape) != tuple(source.shape):
        raise ValueError(
            f"{label} must have shape {tuple(destination.shape)}, got {tuple(source.shape)}: "
            f"the caffemodel is not of this network")
    destination[...] = source


class ImageNetModel(Chain):
    """A chain whose forward pass is an ordered table of named layers (``functions``).

    Subclasses define ``functions``; this base class provides ``available_layers``,
    ``forward``, ``extract`` and ``predict`` on top of it, as Chainer's vision models do.
    """

    # The layers extract() returns by default.
    _extract_layers: ClassVar[tuple[str, ...]] = ("pool5",)
    # The removed keyword that forward() and extract() reject with a pointer to using_config.
    _removed_mode_keyword: ClassVar[str] = "test"
    # Layers whose computation starts again from an earlier layer's output (GoogLeNet's
    # auxiliary classifiers), mapped to that earlier layer.
    _branch_sources: ClassVar[dict[str, str]] = {}

    @property
    def functions(self) -> LayerTable:
        """The layers in order: each name maps to the callables applied in turn."""
        raise NotImplementedError

    @property
    def available_layers(self) -> list[str]:
        """The layer names ``forward`` and ``extract`` accept, in order."""
        return list(self.functions.keys())

    @staticmethod
    def _prepare(image: Any, size: Sequence[int] | None) -> numpy.ndarray:
        raise NotImplementedError

    def _reject_removed_keywords(self, kwargs: dict[str, Any], *extra: str) -> None:
        if not kwargs:
            return
        messages = {
            name: f"{name} argument is not supported anymore. Use chainer.using_config"
            for name in (self._removed_mode_keyword, *extra)
        }
        argument.check_unexpected_kwargs(kwargs, **messages)
        argument.assert_kwargs_empty(kwargs)

    def forward(self, x: Any, layers: Iterable[str] | None = None,
                **kwargs: Any) -> dict[str, Any]:
        """Runs the network on ``x`` and returns the activations of the requested layers.

        The computation stops after the last requested layer. Unknown names are ignored,
        but, as in Chainer, they make it run every layer while looking for them.

        Args:
            x: The input batch, shaped ``(N, 3, H, W)`` and made by ``prepare``.
            layers: The layer names to return; None for ``['prob']``.

        Returns:
            A dict from each requested layer name to its output Variable.

        Raises:
            ValueError: If a removed option (``test`` or ``train``) is given.
        """
        self._reject_removed_keywords(kwargs)
        pending = {"prob"} if layers is None else set(layers)
        sources = set(self._branch_sources.values())
        saved: dict[str, Any] = {}
        activations: dict[str, Any] = {}
        h = x
        for name, steps in self.functions.items():
            if not pending:
                break
            if name in self._branch_sources:
                h = saved[self._branch_sources[name]]
            for step in steps:
                h = step(h)
            if name in sources:
                saved[name] = h
            if name in pending:
                activations[name] = h
                pending.discard(name)
        return activations

    def extract(self, images: Iterable[Any], layers: Iterable[str] | None = None,
                size: Sequence[int] | None = (224, 224), **kwargs: Any) -> dict[str, Any]:
        """Prepares ``images`` and returns the activations of ``layers`` on them.

        Unlike ``predict``, it leaves ``chainer.config.train`` and ``enable_backprop`` as
        they are; set them with ``chainer.using_config`` to extract features for inference.

        Args:
            images: PIL images or RGB arrays (see ``prepare``).
            layers: The layer names to return; None for the class's default feature layer
                (``'fc7'`` for VGG, ``'pool5'`` for ResNet and GoogLeNet).
            size: ``(width, height)`` to resize every image to, or None to keep their
                (then equal) sizes.

        Returns:
            A dict from each requested layer name to its output Variable.

        Raises:
            ValueError: If a removed option (``test``/``train``, ``volatile``) is given.
        """
        self._reject_removed_keywords(kwargs, "volatile")
        if layers is None:
            layers = list(self._extract_layers)
        batch = numpy.stack([self._prepare(image, size) for image in images])
        x = variable.Variable(self.xp.asarray(batch))
        return self(x, layers=layers)

    def predict(self, images: Iterable[Any], oversample: bool = True) -> variable.Variable:
        """Returns the class probabilities of ``images``, shaped ``(N, 1000)``.

        Each image is resized to 256x256; the network sees its ten 224x224 crops (corners,
        centre and their mirrors), averaged, or only the centre crop. It runs in test mode
        without recording a graph.

        Args:
            images: PIL images or RGB arrays (see ``prepare``).
            oversample: Whether to average over the ten crops instead of the centre crop.

        Returns:
            A Variable of the probabilities.
        """
        batch = numpy.stack([self._prepare(image, _PREDICT_SIZE) for image in images])
        if oversample:
            batch = _oversample(batch, _CROP_SIZE)
        else:
            top = (_PREDICT_SIZE[1] - _CROP_SIZE[0]) // 2
            left = (_PREDICT_SIZE[0] - _CROP_SIZE[1]) // 2
            batch = batch[:, :, top:top + _CROP_SIZE[0], left:left + _CROP_SIZE[1]]
        with configuration.no_backprop_mode(), configuration.using_config("train", False):
            x = variable.Variable(self.xp.asarray(batch))
            y = self(x, layers=["prob"])["prob"]
            if oversample:
                y = reshape(y, (len(y) // 10, 10) + y.shape[1:])
                y = average(y, axis=1)
        return y


# The method parameter named ``oversample`` shadows the function inside ``predict``.
_oversample = oversample

