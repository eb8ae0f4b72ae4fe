"""The ImageNet vision models as Chainer 7.8.1 users see them: layer names, parameter and npz
keys with their shapes, the initializers used without pretrained weights, forward's layer dict,
``prepare``'s preprocessing, ``extract``, ``predict`` and loading a pretrained npz.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import pathlib
import subprocess
import textwrap

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
dataset = importlib.import_module(chainer.__name__ + ".dataset")
serializers = importlib.import_module(chainer.__name__ + ".serializers")
vgg = importlib.import_module(chainer.__name__ + ".links.model.vision.vgg")
resnet = importlib.import_module(chainer.__name__ + ".links.model.vision.resnet")
googlenet = importlib.import_module(chainer.__name__ + ".links.model.vision.googlenet")
Image = pytest.importorskip("PIL.Image")

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")

MODELS = {
    "VGG16Layers": vgg.VGG16Layers, "VGG19Layers": vgg.VGG19Layers,
    "ResNet50Layers": resnet.ResNet50Layers, "ResNet101Layers": resnet.ResNet101Layers,
    "ResNet152Layers": resnet.ResNet152Layers, "GoogLeNet": googlenet.GoogLeNet,
}

# The per-channel means (BGR) each family's prepare() subtracts, from Chainer's documentation.
MEANS = {vgg: (103.939, 116.779, 123.68), resnet: (103.063, 115.903, 123.152),
         googlenet: (104.0, 117.0, 123.0)}


# ---------------------------------------------------------------------------------------------
# Independent specifications of the architectures (the npz layout Chainer writes).

def _conv(prefix, out_channels, in_channels, ksize, bias=True):
    keys = {f"{prefix}/W": (out_channels, in_channels, ksize, ksize)}
    if bias:
        keys[f"{prefix}/b"] = (out_channels,)
    return keys


def _linear(prefix, out_size, in_size):
    return {f"{prefix}/W": (out_size, in_size), f"{prefix}/b": (out_size,)}


def _batch_norm(prefix, size):
    keys = {f"{prefix}/{name}": (size,) for name in ("gamma", "beta", "avg_mean", "avg_var")}
    keys[f"{prefix}/N"] = ()
    return keys


def vgg_spec(n_layers):
    counts = [2, 2, 3, 3, 3] if n_layers == 16 else [2, 2, 4, 4, 4]
    widths = [64, 128, 256, 512, 512]
    keys = {}
    channels = 3
    for stage, (count, width) in enumerate(zip(counts, widths), 1):
        for index in range(1, count + 1):
            keys.update(_conv(f"conv{stage}_{index}", width, channels, 3))
            channels = width
    keys.update(_linear("fc6", 4096, 512 * 7 * 7))
    keys.update(_linear("fc7", 4096, 4096))
    keys.update(_linear("fc8", 1000, 4096))
    return keys


def resnet_spec(n_layers):
    blocks = {50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}[n_layers]
    stages = [(64, 64, 256), (256, 128, 512), (512, 256, 1024), (1024, 512, 2048)]
    keys = {**_conv("conv1", 64, 3, 7), **_batch_norm("bn1", 64), **_linear("fc6", 1000, 2048)}
    for stage, (count, (inputs, middle, outputs)) in enumerate(zip(blocks, stages), 2):
        prefix = f"res{stage}/a"
        keys.update(_conv(f"{prefix}/conv1", middle, inputs, 1, bias=False))
        keys.update(_conv(f"{prefix}/conv2", middle, middle, 3, bias=False))
        keys.update(_conv(f"{prefix}/conv3", outputs, middle, 1, bias=False))
        keys.update(_conv(f"{prefix}/conv4", outputs, inputs, 1, bias=False))
        for bn, size in (("bn1", middle), ("bn2", middle), ("bn3", outputs), ("bn4", outputs)):
            keys.update(_batch_norm(f"{prefix}/{bn}", size))
        for index in range(1, count):
            prefix = f"res{stage}/b{index}"
            keys.update(_conv(f"{prefix}/conv1", middle, outputs, 1, bias=False))
            keys.update(_conv(f"{prefix}/conv2", middle, middle, 3, bias=False))
            keys.update(_conv(f"{prefix}/conv3", outputs, middle, 1, bias=False))
            for bn, size in (("bn1", middle), ("bn2", middle), ("bn3", outputs)):
                keys.update(_batch_norm(f"{prefix}/{bn}", size))
    return keys


GOOGLENET_INCEPTIONS = {
    "inc3a": (192, 64, 96, 128, 16, 32, 32), "inc3b": (256, 128, 128, 192, 32, 96, 64),
    "inc4a": (480, 192, 96, 208, 16, 48, 64), "inc4b": (512, 160, 112, 224, 24, 64, 64),
    "inc4c": (512, 128, 128, 256, 24, 64, 64), "inc4d": (512, 112, 144, 288, 32, 64, 64),
    "inc4e": (528, 256, 160, 320, 32, 128, 128), "inc5a": (832, 256, 160, 320, 32, 128, 128),
    "inc5b": (832, 384, 192, 384, 48, 128, 128),
}


def googlenet_spec():
    keys = {**_conv("conv1", 64, 3, 7), **_conv("conv2_reduce", 64, 64, 1),
            **_conv("conv2", 192, 64, 3), **_linear("loss3_fc", 1000, 1024)}
    for name, (inputs, out1, proj3, out3, proj5, out5, proj_pool) in GOOGLENET_INCEPTIONS.items():
        keys.update(_conv(f"{name}/conv1", out1, inputs, 1))
        keys.update(_conv(f"{name}/proj3", proj3, inputs, 1))
        keys.update(_conv(f"{name}/conv3", out3, proj3, 3))
        keys.update(_conv(f"{name}/proj5", proj5, inputs, 1))
        keys.update(_conv(f"{name}/conv5", out5, proj5, 5))
        keys.update(_conv(f"{name}/projp", proj_pool, inputs, 1))
    for branch, inputs in (("loss1", 512), ("loss2", 528)):
        keys.update(_conv(f"{branch}_conv", 128, inputs, 1))
        keys.update(_linear(f"{branch}_fc1", 1024, 2048))
        keys.update(_linear(f"{branch}_fc2", 1000, 1024))
    return keys


SPECS = {
    "VGG16Layers": lambda: vgg_spec(16), "VGG19Layers": lambda: vgg_spec(19),
    "ResNet50Layers": lambda: resnet_spec(50), "ResNet101Layers": lambda: resnet_spec(101),
    "ResNet152Layers": lambda: resnet_spec(152), "GoogLeNet": googlenet_spec,
}


def _fan_in(shape):
    return math.prod(shape[1:])


def expected_draw(name, key, shape):
    """The distribution and spread Chainer draws ``key`` from with pretrained_model=None."""
    if name.startswith("VGG"):
        return ("normal", 0.01)
    if name.startswith("ResNet"):
        if key == "fc6/W":  # Linear's default, LeCunNormal
            return ("normal", math.sqrt(1.0 / _fan_in(shape)))
        return ("normal", math.sqrt(2.0 / _fan_in(shape)))  # HeNormal(scale=1.0)
    if key.startswith("inc"):  # the inception modules keep their default, LeCunNormal
        return ("normal", math.sqrt(1.0 / _fan_in(shape)))
    return ("uniform", math.sqrt(3.0 / _fan_in(shape)))  # LeCunUniform(scale=1.0)


LAYERS = {
    "VGG16Layers": [
        "conv1_1", "conv1_2", "pool1", "conv2_1", "conv2_2", "pool2", "conv3_1", "conv3_2",
        "conv3_3", "pool3", "conv4_1", "conv4_2", "conv4_3", "pool4", "conv5_1", "conv5_2",
        "conv5_3", "pool5", "fc6", "fc7", "fc8", "prob"],
    "VGG19Layers": [
        "conv1_1", "conv1_2", "pool1", "conv2_1", "conv2_2", "pool2", "conv3_1", "conv3_2",
        "conv3_3", "conv3_4", "pool3", "conv4_1", "conv4_2", "conv4_3", "conv4_4", "pool4",
        "conv5_1", "conv5_2", "conv5_3", "conv5_4", "pool5", "fc6", "fc7", "fc8", "prob"],
    "GoogLeNet": [
        "conv1", "pool1", "conv2_reduce", "conv2", "pool2", "inception_3a", "inception_3b",
        "pool3", "inception_4a", "inception_4b", "inception_4c", "inception_4d",
        "inception_4e", "pool4", "inception_5a", "inception_5b", "pool5", "loss3_fc", "prob",
        "loss1_fc2", "loss2_fc2"],
}
for _depth in (50, 101, 152):
    LAYERS[f"ResNet{_depth}Layers"] = [
        "conv1", "pool1", "res2", "res3", "res4", "res5", "pool5", "fc6", "prob"]


# ---------------------------------------------------------------------------------------------
# Helpers

@contextlib.contextmanager
def recorded_draws():
    """Records every global NumPy normal/uniform draw and returns zeros instead, which keeps
    constructing the big models fast while showing which initializer ran."""
    draws = []

    def normal(loc=0.0, scale=1.0, size=None):
        draws.append(("normal", float(scale), tuple(size), float(loc)))
        return numpy.float64(0)  # broadcast by the caller's ``array[...] = draw``

    def uniform(low=0.0, high=1.0, size=None):
        draws.append(("uniform", float(high), tuple(size), float(low) + float(high)))
        return numpy.float64(0)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(numpy.random, "normal", normal)
        patch.setattr(numpy.random, "uniform", uniform)
        yield draws


def npz_layout(model):
    serializer = serializers.DictionarySerializer()
    serializer.save(model)
    return {key: numpy.shape(value) for key, value in serializer.target.items()}


def randomize(model, seed):
    """Fills every parameter and batch-norm statistic with small random values."""
    rng = numpy.random.default_rng(seed)
    for path, param in sorted(model.namedparams()):
        shape = param.shape
        if path.endswith("/W"):
            # Repeating a block of at most 2**20 draws keeps VGG's 10**8-entry fc6 cheap to fill.
            block = rng.standard_normal(min(param.size, 1 << 20), dtype=numpy.float32)
            block /= numpy.float32(math.sqrt(_fan_in(shape)))
            flat = param.array.reshape(-1)
            for start in range(0, flat.size, block.size):
                flat[start:start + block.size] = block[:flat.size - start]
            continue
        elif path.endswith("/gamma"):
            values = rng.uniform(0.5, 1.5, shape).astype(numpy.float32)
        else:
            values = rng.uniform(-0.1, 0.1, shape).astype(numpy.float32)
        param.array[...] = values
    for link in model.links():
        if hasattr(link, "avg_var"):
            link.avg_mean[...] = rng.uniform(-0.1, 0.1, link.avg_mean.shape)
            link.avg_var[...] = rng.uniform(0.5, 1.5, link.avg_var.shape)
    return model


def pooled(size, ksize, stride, pad=0):
    """Output length of Chainer's pooling with cover_all=True."""
    return (size + 2 * pad - ksize + stride - 1) // stride + 1


def random_image(seed, height, width):
    return numpy.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=numpy.uint8)


def prepare_reference(image_hwc, mean_bgr, size=None):
    """NumPy's account of prepare(): optional Pillow resize, RGB to BGR, mean, channels first."""
    if size is not None:
        image_hwc = numpy.asarray(Image.fromarray(image_hwc).resize(size))
    bgr = image_hwc[:, :, ::-1].astype(numpy.float32)
    return (bgr - numpy.asarray(mean_bgr, numpy.float32)).transpose(2, 0, 1)


class Built:
    """A model constructed with pretrained_model=None under ``recorded_draws``."""

    def __init__(self, name):
        with recorded_draws() as draws:
            self.model = MODELS[name](pretrained_model=None)
        self.name = name
        self.draws = draws
        self.biases_zero = all(not param.array.any() for key, param in
                               self.model.namedparams() if key.endswith("/b"))


@pytest.fixture(scope="module")
def built_vgg16():
    return Built("VGG16Layers")


@pytest.fixture(scope="module")
def built_resnet50():
    return Built("ResNet50Layers")


@pytest.fixture(scope="module")
def built_googlenet():
    return Built("GoogLeNet")


SHARED = {"VGG16Layers": "built_vgg16", "ResNet50Layers": "built_resnet50",
          "GoogLeNet": "built_googlenet"}


@pytest.fixture(scope="module", params=sorted(MODELS))
def built(request):
    if request.param in SHARED:
        return request.getfixturevalue(SHARED[request.param])
    return Built(request.param)


# The forward tests fill the same instances with random weights once the structure is checked.
@pytest.fixture(scope="module")
def vgg16(built_vgg16):
    return randomize(built_vgg16.model, 0)


@pytest.fixture(scope="module")
def resnet50(built_resnet50):
    return randomize(built_resnet50.model, 1)


@pytest.fixture(scope="module")
def google_net(built_googlenet):
    return randomize(built_googlenet.model, 2)


# ---------------------------------------------------------------------------------------------
# Structure

def test_npz_keys_and_shapes_follow_chainers_architecture(built):
    assert npz_layout(built.model) == SPECS[built.name]()


def test_available_layers_are_chainers_names_in_order(built):
    assert built.model.available_layers == LAYERS[built.name]
    assert list(built.model.functions) == LAYERS[built.name]


def test_without_pretrained_model_weights_use_the_papers_initializers(built):
    expected = sorted((*expected_draw(built.name, key, shape), shape)
                      for key, shape in SPECS[built.name]().items() if key.endswith("/W"))
    actual = sorted(draw[:3] for draw in built.draws)
    assert [(kind, shape) for kind, _, shape in actual] == \
        [(kind, shape) for kind, _, shape in expected]
    numpy.testing.assert_allclose([spread for _, spread, _ in actual],
                                  [spread for _, spread, _ in expected], rtol=1e-6)
    # Normal draws are centred, uniform ones symmetric, and biases start at zero.
    assert all(draw[3] == 0.0 for draw in built.draws)
    assert built.biases_zero


def test_resnet_building_blocks_place_the_downsampling_stride():
    msra = resnet.BottleneckA(8, 4, 16, stride=2, downsample_fb=False)
    facebook = resnet.BottleneckA(8, 4, 16, stride=2, downsample_fb=True)
    assert (msra.conv1.stride, msra.conv2.stride, msra.conv4.stride) == ((2, 2), (1, 1), (2, 2))
    assert (facebook.conv1.stride, facebook.conv2.stride) == ((1, 1), (2, 2))
    block = resnet.BuildingBlock(3, 8, 4, 16, 2)
    assert sorted(name for name, _ in block.namedlinks(skipself=True)
                  if name.count("/") == 1) == ["/a", "/b1", "/b2"]
    x = numpy.random.default_rng(3).standard_normal((2, 8, 6, 6)).astype(numpy.float32)
    assert block(x).shape == (2, 16, 3, 3)
    assert resnet.BottleneckB(16, 4)(block(x)).shape == (2, 16, 3, 3)


# ---------------------------------------------------------------------------------------------
# forward

def test_vgg16_forward_at_its_smallest_input_returns_every_requested_layer(vgg16):
    # 193 is the smallest side that five 2x2 poolings (cover_all) still bring down to 7.
    x = numpy.random.default_rng(4).standard_normal((1, 3, 193, 193)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = vgg16.forward(x, layers=vgg16.available_layers)
    assert list(out) == vgg16.available_layers
    side, expected = 193, {}
    for name in vgg16.available_layers:
        if name.startswith("pool"):
            side = pooled(side, 2, 2)
        if name.startswith(("conv", "pool")):
            channels = (64, 128, 256, 512, 512)[int(name[4]) - 1]
            expected[name] = (1, channels, side, side)
        else:
            expected[name] = (1, 4096 if name in ("fc6", "fc7") else 1000)
    assert {name: value.shape for name, value in out.items()} == expected
    padded = numpy.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    windows = numpy.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    reference = numpy.einsum("chwij,ocij->ohw", windows, vgg16.conv1_1.W.array)
    reference = numpy.maximum(reference + vgg16.conv1_1.b.array[:, None, None], 0)
    numpy.testing.assert_allclose(out["conv1_1"].array[0], reference, rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(out["prob"].array.sum(), 1.0, rtol=1e-5)


def test_forward_stops_after_the_last_requested_layer(vgg16):
    # An 8x8 input would break fc6; asking only for pool1 must never reach it.
    x = numpy.zeros((2, 3, 8, 8), numpy.float32)
    out = vgg16.forward(x, layers=["pool1", "conv1_1"])
    assert sorted(out) == ["conv1_1", "pool1"]
    assert out["pool1"].shape == (2, 64, 4, 4)


def test_resnet50_forward_returns_the_layer_dict_at_a_small_size(resnet50):
    x = numpy.random.default_rng(5).standard_normal((2, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = resnet50.forward(x, layers=resnet50.available_layers)
        default = resnet50(x)
    shapes = {name: value.shape for name, value in out.items()}
    assert shapes == {
        "conv1": (2, 64, 16, 16), "pool1": (2, 64, 8, 8), "res2": (2, 256, 8, 8),
        "res3": (2, 512, 4, 4), "res4": (2, 1024, 2, 2), "res5": (2, 2048, 1, 1),
        "pool5": (2, 2048), "fc6": (2, 1000), "prob": (2, 1000)}
    numpy.testing.assert_allclose(out["pool5"].array, out["res5"].array.mean(axis=(2, 3)),
                                  rtol=1e-5)
    logits = out["fc6"].array
    expected = numpy.exp(logits - logits.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(out["prob"].array, expected, rtol=1e-4, atol=1e-7)
    assert list(default) == ["prob"]
    numpy.testing.assert_allclose(default["prob"].array, out["prob"].array, rtol=1e-5)


def test_googlenet_auxiliary_classifiers_branch_off_inception_4a_and_4d(google_net):
    x = numpy.random.default_rng(6).standard_normal((1, 3, 224, 224)).astype(numpy.float32)
    layers = ["inception_4a", "inception_4d", "pool5", "prob", "loss1_fc2", "loss2_fc2"]
    with chainer.using_config("train", False):
        out = google_net.forward(x, layers=layers)
        for branch, source in (("loss1", "inception_4a"), ("loss2", "inception_4d")):
            h = F.average_pooling_2d(out[source], ksize=5, stride=3)
            h = F.relu(getattr(google_net, f"{branch}_conv")(h))
            h = F.relu(getattr(google_net, f"{branch}_fc1")(h))
            expected = getattr(google_net, f"{branch}_fc2")(h)
            numpy.testing.assert_allclose(out[f"{branch}_fc2"].array, expected.array,
                                          rtol=1e-4, atol=1e-6)
    assert out["inception_4a"].shape == (1, 512, 14, 14)
    assert out["inception_4d"].shape == (1, 528, 14, 14)
    assert out["pool5"].shape == (1, 1024, 1, 1)
    assert out["prob"].shape == out["loss1_fc2"].shape == out["loss2_fc2"].shape == (1, 1000)


@pytest.mark.parametrize("name, keyword", [("vgg16", "test"), ("resnet50", "test"),
                                           ("google_net", "train")])
def test_forward_refuses_the_removed_mode_keyword(name, keyword, request):
    model = request.getfixturevalue(name)
    x = numpy.zeros((1, 3, 8, 8), numpy.float32)
    with pytest.raises(ValueError, match="using_config"):
        model.forward(x, layers=["conv1" if name != "vgg16" else "conv1_1"], **{keyword: True})
    with pytest.raises(TypeError):
        model.forward(x, layers=["pool1"], unknown=True)


# ---------------------------------------------------------------------------------------------
# prepare, extract, predict

@pytest.mark.parametrize("module", [vgg, resnet, googlenet], ids=lambda m: m.__name__[-9:])
def test_prepare_reorders_to_bgr_subtracts_the_mean_and_moves_channels_first(module):
    image = random_image(7, 12, 9)
    mean = MEANS[module]
    expected = prepare_reference(image, mean)
    for given in (image, image.transpose(2, 0, 1), Image.fromarray(image)):
        result = module.prepare(given, size=None)
        assert result.dtype == numpy.float32
        numpy.testing.assert_allclose(result, expected, rtol=1e-6)
    resized = module.prepare(image, size=(10, 6))  # Pillow's (width, height)
    assert resized.shape == (3, 6, 10)
    numpy.testing.assert_allclose(resized, prepare_reference(image, mean, (10, 6)), rtol=1e-6)
    assert module.prepare(image).shape == (3, 224, 224)


def test_prepare_turns_grayscale_into_three_equal_channels():
    gray = random_image(8, 5, 4)[:, :, 0]
    for given in (gray, gray[None]):
        result = vgg.prepare(given, size=None)
        plain = result + numpy.asarray(MEANS[vgg], numpy.float32)[:, None, None]
        for channel in range(3):
            numpy.testing.assert_allclose(plain[channel], gray.astype(numpy.float32))


def test_prepare_follows_the_default_dtype():
    with chainer.using_config("dtype", numpy.float16):
        assert resnet.prepare(random_image(9, 4, 4), size=None).dtype == numpy.float16


def test_extract_prepares_images_and_returns_the_requested_layers(resnet50):
    images = [random_image(10, 40, 30), Image.fromarray(random_image(11, 20, 50))]
    with chainer.using_config("train", False):
        features = resnet50.extract(images, size=(32, 32))
        batch = numpy.stack([resnet.prepare(image, size=(32, 32)) for image in images])
        expected = resnet50.forward(batch, layers=["pool5"])["pool5"]
        several = resnet50.extract(images[:1], layers=["pool1", "res2"], size=(20, 24))
    assert list(features) == ["pool5"]
    numpy.testing.assert_allclose(features["pool5"].array, expected.array, rtol=1e-5)
    assert several["pool1"].shape == (1, 64, 6, 5) and several["res2"].shape == (1, 256, 6, 5)
    with pytest.raises(ValueError, match="using_config"):
        resnet50.extract(images, volatile=True)


@pytest.mark.parametrize("name, layer", [("vgg16", "fc7"), ("resnet50", "pool5"),
                                         ("google_net", "pool5")])
def test_extract_defaults_to_each_models_feature_layer(name, layer, request, monkeypatch):
    model = request.getfixturevalue(name)
    calls = []

    def recording_forward(x, layers):
        calls.append((x.shape, layers, chainer.config.train))
        return {}

    monkeypatch.setattr(model, "forward", recording_forward)
    with chainer.using_config("train", True):
        model.extract([random_image(15, 9, 9)])
    # extract() leaves the train mode alone, unlike predict().
    assert calls == [((1, 3, 224, 224), [layer], True)]


def ten_crops(prepared):
    """The reference crops of a 256x256 image: corners, centre, then their mirror images."""
    corners = [(0, 0), (0, 32), (32, 0), (32, 32), (16, 16)]
    crops = [prepared[:, top:top + 224, left:left + 224] for top, left in corners]
    return crops + [crop[:, :, ::-1] for crop in crops]


@pytest.mark.parametrize("oversample", [True, False])
def test_predict_averages_the_ten_crops_or_takes_the_center_in_test_mode(resnet50, monkeypatch,
                                                                        oversample):
    seen = {}

    def position_sensitive_forward(x, layers):
        # A cheap stand-in for the 224x224 network whose output tells the crops apart.
        seen.update(train=chainer.config.train, backprop=chainer.config.enable_backprop,
                    layers=layers)
        pooled_x = F.average_pooling_2d(x, ksize=28) * 0.01
        return {"prob": F.softmax(F.reshape(pooled_x, (x.shape[0], -1)))}

    monkeypatch.setattr(resnet50, "forward", position_sensitive_forward)
    images = [random_image(13, 64, 48), Image.fromarray(random_image(14, 30, 90))]
    probabilities = resnet50.predict(images, oversample=oversample)
    assert seen == {"train": False, "backprop": False, "layers": ["prob"]}
    assert probabilities.shape == (2, 192)
    for index, image in enumerate(images):
        prepared = resnet.prepare(image, size=(256, 256))
        crops = numpy.stack(ten_crops(prepared) if oversample
                            else [prepared[:, 16:240, 16:240]])
        pooled_crops = crops.reshape(-1, 3, 8, 28, 8, 28).mean(axis=(3, 5))
        pooled_crops = pooled_crops.reshape(len(crops), -1) * 0.01
        exponent = numpy.exp(pooled_crops - pooled_crops.max(axis=1, keepdims=True))
        expected = (exponent / exponent.sum(axis=1, keepdims=True)).mean(axis=0)
        numpy.testing.assert_allclose(probabilities.array[index], expected, rtol=1e-4)


# ---------------------------------------------------------------------------------------------
# Pretrained weights

@pytest.fixture
def dataset_root(tmp_path):
    previous = dataset.get_dataset_root()
    dataset.set_dataset_root(str(tmp_path))
    yield tmp_path
    dataset.set_dataset_root(previous)


def test_a_pretrained_npz_path_is_loaded_without_random_draws(tmp_path, google_net):
    path = tmp_path / "googlenet.npz"
    serializers.save_npz(str(path), google_net, compression=False)
    with recorded_draws() as draws:
        model = googlenet.GoogLeNet(pretrained_model=str(path))
    # Only the inception modules, whose initializers GoogLeNet does not choose, draw.
    assert {draw[0] for draw in draws} == {"normal"}
    assert len(draws) == 6 * len(GOOGLENET_INCEPTIONS)
    for (key, param), (_, reference) in zip(sorted(model.namedparams()),
                                            sorted(google_net.namedparams()), strict=True):
        numpy.testing.assert_array_equal(param.array, reference.array, err_msg=key)


def test_auto_loads_the_converted_npz_from_the_model_directory(dataset_root, google_net):
    directory = dataset_root / "pfnet" / "chainer" / "models"
    directory.mkdir(parents=True)
    serializers.save_npz(str(directory / "bvlc_googlenet.npz"), google_net,
                         compression=False)
    model = googlenet.GoogLeNet()
    numpy.testing.assert_array_equal(model.loss3_fc.W.array, google_net.loss3_fc.W.array)
    numpy.testing.assert_array_equal(model.inc4e.conv5.b.array, google_net.inc4e.conv5.b.array)


def test_resnet_auto_without_converted_model_raises_ioerror(dataset_root):
    # Chainer looks for the caffemodel next to the missing npz; neither is there.
    with pytest.raises(OSError):
        resnet.ResNet50Layers()


# ---------------------------------------------------------------------------------------------
# Against Chainer itself

_CHAINER_SCRIPT = textwrap.dedent("""
    import sys, numpy, chainer
    import chainer.links as L

    def zero(**kwargs):
        return numpy.float64(0)

    draws = (numpy.random.normal, numpy.random.uniform)
    numpy.random.normal = numpy.random.uniform = zero
    models = {"ResNet50Layers": L.ResNet50Layers(pretrained_model=None),
              "GoogLeNet": L.GoogLeNet(pretrained_model=None)}
    numpy.random.normal, numpy.random.uniform = draws
    rng = numpy.random.RandomState(1)
    for name, model in models.items():
        for _, param in sorted(model.namedparams()):
            fan_in = param.size / param.shape[0]
            param.array[...] = rng.uniform(-1, 1, param.shape) / numpy.sqrt(fan_in)
        for link in model.links():
            if hasattr(link, "avg_var"):
                link.avg_mean[...] = rng.uniform(-0.1, 0.1, link.avg_mean.shape)
                link.avg_var[...] = rng.uniform(0.5, 1.5, link.avg_var.shape)
        chainer.serializers.save_npz(sys.argv[1] + "/" + name + ".npz", model, compression=False)
    x = rng.standard_normal((2, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = models["ResNet50Layers"].forward(x, layers=["res3", "pool5", "prob"])
    arrays = {key: value.array for key, value in out.items()}
    numpy.savez(sys.argv[1] + "/outputs.npz", x=x, **arrays)
""")


@pytest.fixture(scope="module")
def chainer_saved(tmp_path_factory):
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}: cannot save "
                    f"models with Chainer to compare with")
    out = tmp_path_factory.mktemp("chainer_vision")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    subprocess.run([str(CHAINER_PYTHON), "-c", _CHAINER_SCRIPT, str(out)],
                   check=True, env=env, timeout=300, capture_output=True)
    return out


@pytest.mark.parametrize("name", ["GoogLeNet", "ResNet50Layers"])
def test_npz_saved_by_chainer_has_exactly_our_keys_and_shapes(name, chainer_saved, request):
    model = request.getfixturevalue(SHARED[name]).model
    with numpy.load(chainer_saved / f"{name}.npz") as saved:
        assert {key: saved[key].shape for key in saved.files} == npz_layout(model)


def test_a_resnet50_saved_by_chainer_loads_and_computes_chainers_numbers(chainer_saved):
    model = resnet.ResNet50Layers(pretrained_model=str(chainer_saved / "ResNet50Layers.npz"))
    with numpy.load(chainer_saved / "outputs.npz") as expected:
        with chainer.using_config("train", False):
            out = model.forward(expected["x"], layers=["res3", "pool5", "prob"])
        for key in ("res3", "pool5", "prob"):
            scale = numpy.abs(expected[key]).max()
            numpy.testing.assert_allclose(out[key].array, expected[key], rtol=1e-4,
                                          atol=1e-5 * scale, err_msg=key)
