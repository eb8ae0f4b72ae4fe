"""Our side of the ImageNet vision models: the errors for a missing pretrained npz and for
Caffe conversion, argument checks, the lazy Pillow import, the shared helpers, and CuPy."""

from __future__ import annotations

import collections
import importlib.util
import os
import sys

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import dataset
from chainer_compat.links.model.vision import _imagenet, googlenet, resnet, vgg

SIX_MODELS = [vgg.VGG16Layers, vgg.VGG19Layers, resnet.ResNet50Layers, resnet.ResNet101Layers,
              resnet.ResNet152Layers, googlenet.GoogLeNet]
NPZ_NAMES = {
    "VGG16Layers": "VGG_ILSVRC_16_layers.npz", "VGG19Layers": "VGG_ILSVRC_19_layers.npz",
    "ResNet50Layers": "ResNet-50-model.npz", "ResNet101Layers": "ResNet-101-model.npz",
    "ResNet152Layers": "ResNet-152-model.npz", "GoogLeNet": "bvlc_googlenet.npz",
}


@pytest.fixture
def dataset_root(tmp_path):
    previous = dataset.get_dataset_root()
    dataset.set_dataset_root(str(tmp_path))
    yield tmp_path
    dataset.set_dataset_root(previous)


@pytest.mark.parametrize("model_class", SIX_MODELS, ids=lambda cls: cls.__name__)
def test_auto_without_converted_npz_says_which_file_to_put_where(model_class, dataset_root):
    with pytest.raises(FileNotFoundError) as info:
        model_class()
    message = str(info.value)
    directory = os.path.join(str(dataset_root), "pfnet", "chainer", "models")
    assert os.path.join(directory, NPZ_NAMES[model_class.__name__]) in message
    assert message.startswith("pretrained_model='auto' must find the converted model file")
    for hint in ("Chainer 7.8.1", "CHAINER_DATASET_ROOT", "convert_caffemodel_to_npz",
                 f"chainer.links.{model_class.__name__}()"):
        assert hint in message
    # compat: Chainer creates the model directory while looking for the file.
    assert os.path.isdir(directory)


def test_resnet_with_a_named_caffemodel_reports_it_and_the_depths_npz(dataset_root):
    with pytest.raises(OSError, match=r"ResNet-101-model\.npz") as info:
        resnet.ResNet101Layers(pretrained_model="my-weights.caffemodel")
    assert os.path.join(str(dataset_root), "pfnet", "chainer", "models",
                        "my-weights.caffemodel") in str(info.value)


@pytest.mark.parametrize("model_class", [vgg.VGG16Layers, resnet.ResNetLayers,
                                         googlenet.GoogLeNet], ids=lambda cls: cls.__name__)
def test_converting_a_caffemodel_is_left_to_chainer(model_class, tmp_path):
    with pytest.raises(NotImplementedError, match="must run under Chainer 7.8.1"):
        model_class.convert_caffemodel_to_npz(str(tmp_path / "a.caffemodel"),
                                              str(tmp_path / "a.npz"))
    assert not (tmp_path / "a.npz").exists()


def test_a_missing_npz_path_raises_filenotfounderror(tmp_path):
    with pytest.raises(FileNotFoundError):
        googlenet.GoogLeNet(pretrained_model=str(tmp_path / "absent.npz"))


@pytest.mark.parametrize("make, message", [
    (lambda: vgg.VGGLayers(None, n_layers=17), "n_layers must be 16 or 19, got 17"),
    (lambda: resnet.ResNetLayers(None, 34), "n_layers must be 50, 101 or 152, got 34"),
])
def test_unknown_depths_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_the_vgg_base_class_has_no_layer_table():
    model = vgg.VGGLayers.__new__(vgg.VGGLayers)
    with pytest.raises(NotImplementedError):
        model.functions  # noqa: B018 - reading the property is the check


def test_modules_report_pillow_availability_like_chainer():
    installed = importlib.util.find_spec("PIL") is not None
    for module in (vgg, resnet, googlenet):
        assert module.available is installed
        with pytest.raises(AttributeError):
            module.not_an_attribute  # noqa: B018


def test_prepare_without_pillow_raises_importerror_saying_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        vgg.prepare(numpy.zeros((4, 4, 3), numpy.uint8))


def test_building_block_accepts_the_deprecated_n_layer_keyword():
    with pytest.warns(DeprecationWarning, match="n_layers"):
        block = resnet.BuildingBlock(in_channels=8, mid_channels=2, out_channels=8, stride=1,
                                     n_layer=3)
    assert block._forward == ["a", "b1", "b2"]
    with pytest.raises(TypeError, match="n_layers must be an int"):
        resnet.BuildingBlock(in_channels=8, mid_channels=2, out_channels=8, stride=1)


def test_oversample_cuts_corners_center_and_mirrors():
    images = numpy.arange(2 * 1 * 5 * 7, dtype=numpy.float32).reshape(2, 1, 5, 7)
    crops = _imagenet.oversample(images, (3, 4))
    assert crops.shape == (20, 1, 3, 4)
    for index, image in enumerate(images):
        # Centre offsets round down: int(5/2 - 3/2) = 1, int(7/2 - 4/2) = 1.
        starts = [(0, 0), (0, 3), (2, 0), (2, 3), (1, 1)]
        for position, (top, left) in enumerate(starts):
            window = image[:, top:top + 3, left:left + 4]
            numpy.testing.assert_array_equal(crops[10 * index + position], window)
            numpy.testing.assert_array_equal(crops[10 * index + 5 + position],
                                             window[:, :, ::-1])


def test_googlenet_forward_tolerates_unknown_layer_names():
    model = googlenet.GoogLeNet(pretrained_model=None)
    x = numpy.zeros((1, 3, 224, 224), numpy.float32)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        # compat: Chainer ignores names it does not know, running every layer to look for them.
        assert model.forward(x, layers=["no_such_layer"]) == {}
        out = model.forward(x, layers=["conv1", "no_such_layer"])
    assert list(out) == ["conv1"]


def test_functions_is_a_fresh_ordered_table_of_the_models_own_links():
    model = googlenet.GoogLeNet(pretrained_model=None)
    table = model.functions
    assert isinstance(table, collections.OrderedDict)
    assert table["conv1"][0] is model.conv1 and table["inception_5b"] == [model.inc5b]
    table.clear()
    assert len(model.functions) == len(model.available_layers) == 21


@pytest.mark.gpu
def test_resnet50_extracts_and_predicts_on_the_gpu(cupy):
    model = resnet.ResNet50Layers(pretrained_model=None)
    x = numpy.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        expected = model.forward(x, layers=["pool5"])["pool5"].array
        model.to_device("@cupy:0")
        out = model.forward(cupy.asarray(x), layers=["pool5"])["pool5"].array
        image = numpy.random.default_rng(1).integers(0, 256, (40, 30, 3), dtype=numpy.uint8)
        features = model.extract([image], size=(32, 32))["pool5"].array
    assert isinstance(out, cupy.ndarray) and isinstance(features, cupy.ndarray)
    numpy.testing.assert_allclose(cupy.asnumpy(out), expected, rtol=1e-3, atol=1e-4)
    assert isinstance(model.predict([image], oversample=False).array, cupy.ndarray)
