"""Our side of the ImageNet vision models: the errors for missing pretrained files and for
caffemodels of another network, argument checks, the lazy Pillow import, the shared helpers,
and CuPy."""

from __future__ import annotations

import collections
import hashlib
import importlib.util
import os
import sys

import numpy
import pytest

import chainer_compat as chainer
from chainer_compat import dataset
from chainer_compat.links.caffe.protobuf3 import caffe_pb2
from chainer_compat.links.model.vision import _imagenet, googlenet, resnet, vgg

SIX_MODELS = [vgg.VGG16Layers, vgg.VGG19Layers, resnet.ResNet50Layers, resnet.ResNet101Layers,
              resnet.ResNet152Layers, googlenet.GoogLeNet]
NPZ_NAMES = {
    "VGG16Layers": "VGG_ILSVRC_16_layers.npz", "VGG19Layers": "VGG_ILSVRC_19_layers.npz",
    "ResNet50Layers": "ResNet-50-model.npz", "ResNet101Layers": "ResNet-101-model.npz",
    "ResNet152Layers": "ResNet-152-model.npz", "GoogLeNet": "bvlc_googlenet.npz",
}
CAFFEMODEL_URLS = {
    "VGG16Layers": "https://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"
                   "VGG_ILSVRC_16_layers.caffemodel",
    "VGG19Layers": "http://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"
                   "VGG_ILSVRC_19_layers.caffemodel",
    "GoogLeNet": "http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel",
}


@pytest.fixture
def dataset_root(tmp_path):
    previous = dataset.get_dataset_root()
    dataset.set_dataset_root(str(tmp_path))
    yield tmp_path
    dataset.set_dataset_root(previous)


def caffemodel_location(model_class, root):
    """Where Chainer would look for (or download) the caffemodel of ``model_class``."""
    if model_class.__name__.startswith("ResNet"):
        depth = model_class.__name__[6:-6]
        return os.path.join(root, "pfnet", "chainer", "models", f"ResNet-{depth}-model.caffemodel")
    digest = hashlib.md5(CAFFEMODEL_URLS[model_class.__name__].encode("utf-8")).hexdigest()
    return os.path.join(root, "_dl_cache", digest)


@pytest.mark.parametrize("model_class", SIX_MODELS, ids=lambda cls: cls.__name__)
def test_auto_without_npz_or_caffemodel_names_both_files_and_how_to_get_them(model_class,
                                                                              dataset_root):
    with pytest.raises(FileNotFoundError) as info:
        model_class()
    message = str(info.value)
    directory = os.path.join(str(dataset_root), "pfnet", "chainer", "models")
    assert message.startswith("pretrained_model=")
    assert "must find the converted model file " in message
    assert os.path.join(directory, NPZ_NAMES[model_class.__name__]) in message
    assert caffemodel_location(model_class, str(dataset_root)) in message
    source = CAFFEMODEL_URLS.get(model_class.__name__,
                                 "https://github.com/KaimingHe/deep-residual-networks")
    converter = f"{model_class.__name__}.convert_caffemodel_to_npz(caffemodel, npz)"
    if model_class.__name__.startswith("ResNet"):
        depth = model_class.__name__[6:-6]
        converter = f"ResNetLayers.convert_caffemodel_to_npz(caffemodel, npz, n_layers={depth})"
    for hint in (source, "CHAINER_DATASET_ROOT", converter, "does not download"):
        assert hint in message
    # compat: Chainer creates the model directory while looking for the file.
    assert os.path.isdir(directory)


def test_resnet_with_a_named_caffemodel_reports_it_and_the_depths_npz(dataset_root):
    with pytest.raises(OSError, match=r"ResNet-101-model\.npz") as info:
        resnet.ResNet101Layers(pretrained_model="my-weights.caffemodel")
    assert os.path.join(str(dataset_root), "pfnet", "chainer", "models",
                        "my-weights.caffemodel") in str(info.value)


def test_resnet_takes_an_absolute_caffemodel_path_as_it_is(dataset_root, tmp_path):
    caffemodel = str(tmp_path / "elsewhere" / "weights.caffemodel")
    with pytest.raises(FileNotFoundError) as info:
        resnet.ResNet50Layers(pretrained_model=caffemodel)
    assert f"the caffemodel {caffemodel} to convert" in str(info.value)


def write_caffemodel(path, layers):
    """Writes a caffemodel of ``(type, name, blobs)`` layers, in the current format."""
    net = caffe_pb2.NetParameter()
    for type_, name, blobs in layers:
        layer = net.layer.add()
        layer.type, layer.name = type_, name
        layer.bottom.append("data")
        layer.top.append(name)
        for array in blobs:
            blob = layer.blobs.add()
            blob.shape.dim.extend(array.shape)
            blob.data.extend(array.ravel().tolist())
        if type_ == "Convolution":
            layer.convolution_param.num_output = blobs[0].shape[0]
            layer.convolution_param.kernel_size.append(blobs[0].shape[2])
    path.write_bytes(net.SerializeToString())
    return str(path)


def test_a_caffemodel_lacking_a_layer_is_refused_naming_the_layer(tmp_path):
    pytest.importorskip("google.protobuf")
    weight = numpy.ones((64, 3, 7, 7), numpy.float32)
    path = write_caffemodel(tmp_path / "partial.caffemodel", [
        ("Convolution", "conv1/7x7_s2", [weight, numpy.zeros(64, numpy.float32)])])
    with pytest.raises(AttributeError, match=r"must have a layer with parameters named "
                       r"'conv2/3x3_reduce', got none: it must be BVLC's GoogLeNet"):
        googlenet.GoogLeNet.convert_caffemodel_to_npz(path, str(tmp_path / "out.npz"))
    assert not (tmp_path / "out.npz").exists()


def test_a_caffemodel_of_other_shapes_is_refused_naming_the_parameter(tmp_path):
    pytest.importorskip("google.protobuf")
    weight = numpy.ones((32, 3, 7, 7), numpy.float32)
    path = write_caffemodel(tmp_path / "narrow.caffemodel", [
        ("Convolution", "conv1/7x7_s2", [weight, numpy.zeros(32, numpy.float32)])])
    with pytest.raises(ValueError, match=r"parameter conv1/7x7_s2/W must have shape "
                       r"\(64, 3, 7, 7\), got \(32, 3, 7, 7\)"):
        googlenet.GoogLeNet.convert_caffemodel_to_npz(path, str(tmp_path / "out.npz"))


def test_a_failed_conversion_leaves_no_npz_behind(dataset_root):
    message = pytest.importorskip("google.protobuf.message")
    cached = caffemodel_location(googlenet.GoogLeNet, str(dataset_root))
    os.makedirs(os.path.dirname(cached))
    with open(cached, "wb") as corrupt:
        corrupt.write(b"\xff\xff\xff")
    with pytest.raises(message.DecodeError):
        googlenet.GoogLeNet()
    models = dataset_root / "pfnet" / "chainer" / "models"
    assert os.listdir(models) == []


def test_resnet_conversion_checks_the_depth_before_reading_the_file(tmp_path):
    with pytest.raises(ValueError, match="n_layers must be 50, 101 or 152, got 34"):
        resnet.ResNetLayers.convert_caffemodel_to_npz(str(tmp_path / "absent.caffemodel"),
                                                      str(tmp_path / "out.npz"), n_layers=34)


def test_resnet_conversion_on_a_fixed_depth_class_builds_resnetlayers(tmp_path, monkeypatch):
    # compat: Chainer raises TypeError here (ResNet50Layers takes no n_layers); we convert.
    built = []

    def transfer(self, model):
        built.append((type(model), self.n_layers, len(model.res3._forward)))

    monkeypatch.setattr(_imagenet, "read_caffemodel", lambda path: object())
    monkeypatch.setattr(resnet._Transfer, "into", transfer)
    resnet.ResNet50Layers.convert_caffemodel_to_npz("unused.caffemodel",
                                                    str(tmp_path / "out.npz"), n_layers=101)
    assert built == [(resnet.ResNetLayers, 101, 4)]
    with numpy.load(tmp_path / "out.npz") as saved:
        assert "res4/b22/conv3/W" in saved.files


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
