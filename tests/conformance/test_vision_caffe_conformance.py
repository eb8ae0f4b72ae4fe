"""Converting the published caffemodels of the ImageNet vision models as Chainer 7.8.1 does:
``convert_caffemodel_to_npz`` writes the npz keys and values Chainer writes, and
``pretrained_model='auto'`` converts a caffemodel found where Chainer would have downloaded it.
The networks are narrowed (every channel count but the RGB input divided by 16) so that the
synthetic caffemodels stay small; Chainer itself converts the same files in a subprocess.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import pathlib
import subprocess
import textwrap

import numpy
import pytest

TARGET = os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat")
if TARGET == "chainer":
    # Chainer's generated caffe_pb2 is too old for protobuf's C implementation.
    os.environ.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
pytest.importorskip("google.protobuf")

chainer = importlib.import_module(TARGET)
dataset = importlib.import_module(chainer.__name__ + ".dataset")
vgg = importlib.import_module(chainer.__name__ + ".links.model.vision.vgg")
resnet = importlib.import_module(chainer.__name__ + ".links.model.vision.resnet")
googlenet = importlib.import_module(chainer.__name__ + ".links.model.vision.googlenet")
pb = importlib.import_module(chainer.__name__ + ".links.caffe.protobuf3.caffe_pb2")

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")

# Narrows the models: run here on the target and in the Chainer subprocess, so both build the
# same small networks. ``patch(module, name, value)`` replaces a module global.
NARROW_SOURCE = textwrap.dedent("""
    def narrow(size):
        return size if size in (None, 3) else max(1, size // 16)

    def narrowed(make, count):
        def build(*args, **kwargs):
            args = [narrow(arg) if index < count else arg for index, arg in enumerate(args)]
            return make(*args, **kwargs)
        return build

    def narrow_models(vgg, resnet, googlenet, patch):
        for module in (vgg, resnet, googlenet):
            patch(module, "Convolution2D", narrowed(module.Convolution2D, 2))
            patch(module, "Linear", narrowed(module.Linear, 2))
        patch(resnet, "BatchNormalization", narrowed(resnet.BatchNormalization, 1))
        patch(googlenet, "Inception", narrowed(googlenet.Inception, 7))
""")

# Converts with the library's classes of the modules ``vgg``, ``resnet`` and ``googlenet`` in
# the namespace it runs in: here (the target) and in the Chainer subprocess.
CONVERT_SOURCE = textwrap.dedent("""
    def convert(kind, caffemodel, npz_path):
        kind = kind.removesuffix("-v1")
        if kind.startswith("ResNet"):
            resnet.ResNetLayers.convert_caffemodel_to_npz(caffemodel, npz_path, int(kind[6:]))
        elif kind == "GoogLeNet":
            googlenet.GoogLeNet.convert_caffemodel_to_npz(caffemodel, npz_path)
        else:
            getattr(vgg, kind).convert_caffemodel_to_npz(caffemodel, npz_path)
""")

CHAINER_SCRIPT = NARROW_SOURCE + CONVERT_SOURCE + textwrap.dedent("""
    import sys
    from chainer.links.model.vision import googlenet, resnet, vgg
    if sys.argv[1] == "narrow":
        narrow_models(vgg, resnet, googlenet, setattr)
    jobs = sys.argv[2:]
    for kind, caffemodel, npz_path in zip(jobs[::3], jobs[1::3], jobs[2::3]):
        convert(kind, caffemodel, npz_path)
""")

VGG_URLS = {
    16: "https://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"
        "VGG_ILSVRC_16_layers.caffemodel",
    19: "http://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"
        "VGG_ILSVRC_19_layers.caffemodel",
}
GOOGLENET_URL = "http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel"
INCEPTIONS = ("3a", "3b", "4a", "4b", "4c", "4d", "4e", "5a", "5b")
INCEPTION_BRANCHES = {"conv1": "1x1", "proj3": "3x3_reduce", "conv3": "3x3",
                      "proj5": "5x5_reduce", "conv5": "5x5", "projp": "pool_proj"}
GOOGLENET_LAYERS = {
    "conv1": "conv1/7x7_s2", "conv2_reduce": "conv2/3x3_reduce", "conv2": "conv2/3x3",
    "loss1_conv": "loss1/conv", "loss1_fc1": "loss1/fc", "loss1_fc2": "loss1/classifier",
    "loss2_conv": "loss2/conv", "loss2_fc1": "loss2/fc", "loss2_fc2": "loss2/classifier",
    "loss3_fc": "loss3/classifier",
}


def narrow_models(monkeypatch):
    namespace: dict = {}
    exec(NARROW_SOURCE, namespace)  # noqa: S102 - the same source the subprocess runs
    namespace["narrow_models"](vgg, resnet, googlenet, monkeypatch.setattr)


@pytest.fixture
def narrow(monkeypatch):
    narrow_models(monkeypatch)


@pytest.fixture
def dataset_root(tmp_path):
    previous = dataset.get_dataset_root()
    dataset.set_dataset_root(str(tmp_path / "root"))
    yield tmp_path / "root"
    dataset.set_dataset_root(previous)


# ---------------------------------------------------------------------------------------------
# Writing caffemodels shaped like the published ones, from the (narrowed) model's shapes.

V1_TYPES = {"Convolution": "CONVOLUTION", "InnerProduct": "INNER_PRODUCT", "ReLU": "RELU",
            "Pooling": "POOLING", "Softmax": "SOFTMAX"}


class CaffeNet:
    """A NetParameter filled with random blobs: in the current ``layer`` format, or in the
    V1 ``layers`` format with 4-d legacy blob dims, as the published VGG files are."""

    def __init__(self, seed, v1=False):
        self.net = pb.NetParameter()
        self.rng = numpy.random.RandomState(seed)
        self.blobs = {}
        self.v1 = v1

    def _layer(self, type_, name, arrays, bottom="data"):
        if self.v1:
            layer = self.net.layers.add()
            layer.name, layer.type = name, getattr(pb.V1LayerParameter, V1_TYPES[type_])
        else:
            layer = self.net.layer.add()
            layer.name, layer.type = name, type_
        layer.bottom.append(bottom)
        layer.top.append(name)
        for index, array in enumerate(arrays):
            blob = layer.blobs.add()
            if self.v1:
                legacy = (1,) * (4 - array.ndim) + array.shape
                blob.num, blob.channels, blob.height, blob.width = legacy
            else:
                blob.shape.dim.extend(array.shape)
            blob.data.extend(array.ravel().tolist())
            self.blobs[name, index] = array
        return layer

    def random(self, shape, low=-1.0, high=1.0):
        return self.rng.uniform(low, high, shape).astype(numpy.float32)

    def convolution(self, name, shape, bias=True):
        arrays = [self.random(shape)] + ([self.random(shape[:1])] if bias else [])
        param = self._layer("Convolution", name, arrays).convolution_param
        param.num_output, param.bias_term = shape[0], bias
        param.kernel_size.append(shape[2])

    def inner_product(self, name, shape):
        param = self._layer("InnerProduct", name, [self.random(shape), self.random(shape[:1])])
        param.inner_product_param.num_output = shape[0]

    def batch_norm(self, name, size):
        # Caffe stores running sums and their normalizer; the reader divides by it.
        factor = numpy.array([2.0], numpy.float32)
        arrays = [self.random((size,)), self.random((size,), 0.5, 1.5), factor]
        self._layer("BatchNorm", name, arrays).batch_norm_param.use_global_stats = True

    def scale(self, name, size):
        layer = self._layer("Scale", name, [self.random((size,)), self.random((size,))])
        layer.scale_param.bias_term = True

    def parameterless(self, name, type_):
        self._layer(type_, name, [])

    def write(self, path):
        pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(path).write_bytes(self.net.SerializeToString())
        return str(path)


def vgg_caffemodel(model, seed=0, v1=False):
    net = CaffeNet(seed, v1)
    for name, steps in model.functions.items():
        link = steps[0] if steps and isinstance(steps[0], chainer.Link) else None
        if link is None:
            net.parameterless(name, "Softmax" if name == "prob" else "Pooling")
        elif name.startswith("conv"):
            net.convolution(name, link.W.shape)
            net.parameterless(f"relu{name[4:]}", "ReLU")
        else:
            net.inner_product(name, link.W.shape)
    return net


def resnet_caffemodel(model, n_layers, seed=0):
    net = CaffeNet(seed)
    net.convolution("conv1", model.conv1.W.shape, bias=n_layers == 50)
    net.batch_norm("bn_conv1", model.bn1.avg_mean.size)
    net.scale("scale_conv1", model.bn1.avg_mean.size)
    net.parameterless("conv1_relu", "ReLU")
    for stage in (2, 3, 4, 5):
        block = getattr(model, f"res{stage}")
        names = block._forward
        if n_layers > 50 and stage in (3, 4):
            suffixes = ["a"] + [f"b{index}" for index in range(1, len(names))]
        else:
            suffixes = ["abcdefghijklmnop"[index] for index in range(len(names))]
        for name, suffix in zip(names, suffixes, strict=True):
            bottleneck = getattr(block, name)
            parts = ["2a", "2b", "2c"] + (["1"] if name == "a" else [])
            for index, part in enumerate(parts, 1):
                branch = f"{stage}{suffix}_branch{part}"
                net.convolution(f"res{branch}", getattr(bottleneck, f"conv{index}").W.shape,
                                bias=False)
                size = getattr(bottleneck, f"bn{index}").avg_mean.size
                net.batch_norm(f"bn{branch}", size)
                net.scale(f"scale{branch}", size)
    net.parameterless("pool5", "Pooling")
    net.inner_product("fc1000", model.fc6.W.shape)
    net.parameterless("prob", "Softmax")
    return net


def googlenet_caffemodel(model, seed=0):
    net = CaffeNet(seed)
    pairs = [(getattr(model, name), source) for name, source in GOOGLENET_LAYERS.items()]
    for module in INCEPTIONS:
        inception = getattr(model, f"inc{module}")
        pairs += [(getattr(inception, branch), f"inception_{module}/{source}")
                  for branch, source in INCEPTION_BRANCHES.items()]
    for link, source in pairs:
        if link.W.ndim == 4:
            net.convolution(source, link.W.shape)
        else:
            net.inner_product(source, link.W.shape)
    net.parameterless("loss3/loss3", "Softmax")
    return net


def build(kind):
    if kind.endswith("-v1"):
        return vgg_caffemodel(getattr(vgg, kind[:-3])(pretrained_model=None), v1=True)
    if kind.startswith("ResNet"):
        n_layers = int(kind[6:])
        return resnet_caffemodel(resnet.ResNetLayers(None, n_layers), n_layers)
    if kind == "GoogLeNet":
        return googlenet_caffemodel(googlenet.GoogLeNet(pretrained_model=None))
    return vgg_caffemodel(getattr(vgg, kind)(pretrained_model=None))


def convert(kind, caffemodel, npz_path):
    """Converts with the target's classes: the same source the Chainer subprocess runs."""
    namespace = {"vgg": vgg, "resnet": resnet, "googlenet": googlenet}
    exec(CONVERT_SOURCE, namespace)  # noqa: S102 - the same source the subprocess runs
    namespace["convert"](kind, caffemodel, npz_path)


def read_npz(path):
    with numpy.load(path) as saved:
        return {key: saved[key] for key in saved.files}


def assert_same_npz(actual, expected):
    assert sorted(actual) == sorted(expected)
    for key, value in expected.items():
        assert actual[key].dtype == value.dtype, key
        numpy.testing.assert_array_equal(actual[key], value, err_msg=key)


# ---------------------------------------------------------------------------------------------
# The npz the conversion writes, checked against the caffemodel's blobs.

@pytest.mark.parametrize("kind", ["VGG16Layers", "VGG16Layers-v1"])
def test_vgg_npz_holds_each_caffe_layers_blobs_under_the_layers_name(narrow, tmp_path, kind):
    net = build(kind)
    caffemodel = net.write(tmp_path / "vgg.caffemodel")
    vgg.VGG16Layers.convert_caffemodel_to_npz(caffemodel, str(tmp_path / "vgg.npz"))
    saved = read_npz(tmp_path / "vgg.npz")
    expected = {f"{name}/{'Wb'[index]}": array for (name, index), array in net.blobs.items()}
    assert_same_npz(saved, expected)
    model = vgg.VGG16Layers(pretrained_model=str(tmp_path / "vgg.npz"))
    numpy.testing.assert_array_equal(model.conv5_3.W.array, net.blobs["conv5_3", 0])


@pytest.mark.parametrize("n_layers", [50, 101, 152])
def test_resnet_npz_folds_batchnorm_and_scale_layers_into_batch_normalization(
        narrow, tmp_path, n_layers):
    net = build(f"ResNet{n_layers}")
    caffemodel = net.write(tmp_path / "resnet.caffemodel")
    resnet.ResNetLayers.convert_caffemodel_to_npz(caffemodel, str(tmp_path / "resnet.npz"),
                                                  n_layers=n_layers)
    saved = read_npz(tmp_path / "resnet.npz")
    numpy.testing.assert_array_equal(saved["conv1/W"], net.blobs["conv1", 0])
    if n_layers == 50:
        numpy.testing.assert_array_equal(saved["conv1/b"], net.blobs["conv1", 1])
    else:
        # MSRA's deeper caffemodels have no bias there; Chainer's npz keeps the zero bias.
        numpy.testing.assert_array_equal(saved["conv1/b"], 0)
    last = "b2" if n_layers == 50 else "b1"
    suffix = "c" if n_layers == 50 else "b1"
    pairs = {"bn1": ("bn_conv1", "scale_conv1"),
             "res4/a/bn4": ("bn4a_branch1", "scale4a_branch1"),
             f"res3/{last}/bn2": (f"bn3{suffix}_branch2b", f"scale3{suffix}_branch2b")}
    for prefix, (statistics, scale) in pairs.items():
        numpy.testing.assert_allclose(saved[f"{prefix}/avg_mean"],
                                      net.blobs[statistics, 0] / 2, rtol=1e-6)
        numpy.testing.assert_allclose(saved[f"{prefix}/avg_var"],
                                      net.blobs[statistics, 1] / 2, rtol=1e-6)
        numpy.testing.assert_array_equal(saved[f"{prefix}/gamma"], net.blobs[scale, 0])
        numpy.testing.assert_array_equal(saved[f"{prefix}/beta"], net.blobs[scale, 1])
        assert saved[f"{prefix}/N"] == 0
    numpy.testing.assert_array_equal(saved["res5/b2/conv3/W"], net.blobs["res5c_branch2c", 0])
    numpy.testing.assert_array_equal(saved["fc6/b"], net.blobs["fc1000", 1])


def test_googlenet_npz_takes_bvlcs_layer_names(narrow, tmp_path):
    net = build("GoogLeNet")
    caffemodel = net.write(tmp_path / "googlenet.caffemodel")
    googlenet.GoogLeNet.convert_caffemodel_to_npz(caffemodel, str(tmp_path / "g.npz"))
    saved = read_npz(tmp_path / "g.npz")
    numpy.testing.assert_array_equal(saved["inc4e/projp/W"], net.blobs["inception_4e/pool_proj", 0])
    numpy.testing.assert_array_equal(saved["loss2_fc1/b"], net.blobs["loss2/fc", 1])
    numpy.testing.assert_array_equal(saved["conv1/W"], net.blobs["conv1/7x7_s2", 0])
    # Every parameter comes from the caffemodel: each saved array is one of its blobs.
    blobs = {array.tobytes() for array in net.blobs.values()}
    assert all(array.tobytes() in blobs for array in saved.values())


# ---------------------------------------------------------------------------------------------
# pretrained_model='auto' converts a caffemodel found where Chainer downloads it.

def vgg_cache_path(root, n_layers):
    digest = hashlib.md5(VGG_URLS[n_layers].encode("utf-8")).hexdigest()
    return root / "_dl_cache" / digest


@pytest.mark.parametrize("kind", ["VGG16Layers", "ResNet50Layers", "GoogLeNet"])
def test_auto_converts_the_cached_caffemodel_once_and_then_loads_the_npz(
        narrow, dataset_root, kind, capsys):
    net = build("ResNet50" if kind == "ResNet50Layers" else kind)
    models = dataset_root / "pfnet" / "chainer" / "models"
    if kind == "VGG16Layers":
        cached, npz_name = vgg_cache_path(dataset_root, 16), "VGG_ILSVRC_16_layers.npz"
        model_class, check = vgg.VGG16Layers, ("fc7", ("fc7", 0))
    elif kind == "ResNet50Layers":
        cached, npz_name = models / "ResNet-50-model.caffemodel", "ResNet-50-model.npz"
        model_class, check = resnet.ResNet50Layers, ("fc6", ("fc1000", 0))
    else:
        digest = hashlib.md5(GOOGLENET_URL.encode("utf-8")).hexdigest()
        cached, npz_name = dataset_root / "_dl_cache" / digest, "bvlc_googlenet.npz"
        model_class, check = googlenet.GoogLeNet, ("loss3_fc", ("loss3/classifier", 0))
    net.write(cached)
    model = model_class()
    assert "Now loading caffemodel" in capsys.readouterr().err
    link_name, blob = check
    numpy.testing.assert_array_equal(getattr(model, link_name).W.array, net.blobs[blob])
    assert (models / npz_name).exists()
    # The npz is found first from now on: the caffemodel is no longer read.
    cached.unlink()
    again = model_class()
    numpy.testing.assert_array_equal(getattr(again, link_name).W.array, net.blobs[blob])
    assert "Now loading caffemodel" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Against Chainer itself: it converts the same caffemodel, and the npz files are equal.

NARROW_KINDS = ["VGG16Layers", "VGG16Layers-v1", "VGG19Layers", "ResNet50", "ResNet101",
                "ResNet152", "GoogLeNet"]


def convert_with_chainer(size, jobs):
    """Converts each ``(kind, caffemodel, npz)`` job with Chainer, all in one subprocess."""
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}: cannot convert "
                    f"with Chainer to compare with")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
    arguments = [str(item) for job in jobs for item in job]
    subprocess.run([str(CHAINER_PYTHON), "-c", CHAINER_SCRIPT, size, *arguments],
                   check=True, env=env, timeout=400, capture_output=True)


@pytest.fixture(scope="module")
def chainer_converted(tmp_path_factory):
    """Each narrowed kind -> (its caffemodel, the npz Chainer converted it to)."""
    directory = tmp_path_factory.mktemp("vision_caffe")
    with pytest.MonkeyPatch.context() as monkeypatch:
        narrow_models(monkeypatch)
        caffemodels = {kind: build(kind).write(directory / f"{kind}.caffemodel")
                       for kind in NARROW_KINDS}
    jobs = [(kind, caffemodels[kind], directory / f"{kind}.npz") for kind in NARROW_KINDS]
    convert_with_chainer("narrow", jobs)
    return {kind: (caffemodels[kind], read_npz(npz_path)) for kind, _, npz_path in jobs}


@pytest.mark.parametrize("kind", NARROW_KINDS)
def test_the_npz_equals_chainers_conversion_of_the_same_caffemodel(
        narrow, tmp_path, chainer_converted, kind):
    caffemodel, expected = chainer_converted[kind]
    convert(kind, caffemodel, str(tmp_path / "ours.npz"))
    assert_same_npz(read_npz(tmp_path / "ours.npz"), expected)


@pytest.mark.slow
def test_a_full_size_resnet50_npz_equals_chainers_conversion(tmp_path):
    # About 45 s: Chainer parses the 100 MB caffemodel with pure-Python protobuf.
    caffemodel = build("ResNet50").write(tmp_path / "model.caffemodel")
    convert("ResNet50", caffemodel, str(tmp_path / "ours.npz"))
    convert_with_chainer("full", [("ResNet50", caffemodel, tmp_path / "chainer.npz")])
    assert_same_npz(read_npz(tmp_path / "ours.npz"), read_npz(tmp_path / "chainer.npz"))
