"""exporters.caffe.export: the files it writes, the layers and blobs in them, and that
CaffeFunction reads them back to the model's own outputs."""

from __future__ import annotations

import numpy
import pytest

pytest.importorskip("google.protobuf")

import chainer_compat as chainer  # noqa: E402
import chainer_compat.functions as F  # noqa: E402
import chainer_compat.links as L  # noqa: E402
from chainer_compat.exporters import caffe  # noqa: E402
from chainer_compat.links.caffe import CaffeFunction, _proto  # noqa: E402

pb = _proto.load()


def randomize(model, x, seed=0):
    with chainer.using_config("train", False):
        model(x)  # initializes the lazily sized parameters
    rng = numpy.random.RandomState(seed)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-1, 1, param.shape)
    for link in model.links():
        if isinstance(link, L.BatchNormalization):
            link.avg_mean[...] = rng.uniform(-1, 1, link.avg_mean.shape)
            link.avg_var[...] = rng.uniform(0.5, 1.5, link.avg_var.shape)
    return model


class Everything(chainer.Chain):
    """Every function the exporter writes, with the shapes Chainer's exporter got wrong."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, (3, 2), stride=(1, 2), pad=(1, 0))
            self.grouped = L.Convolution2D(4, 4, 3, pad=2, dilate=2, groups=2, nobias=True)
            self.up = L.Deconvolution2D(4, 6, 2, stride=2, groups=2)
            self.bn = L.BatchNormalization(6)
            self.bare_bn = L.BatchNormalization(6, use_gamma=False, use_beta=False)
            self.fc = L.Linear(None, 5)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = self.up(self.grouped(h))
        h = F.concat((self.bn(h), self.bare_bn(h)), axis=1)
        h = F.max_pooling_2d(h, 2) + F.average_pooling_2d(h, 3, 2, 1)
        h = F.local_response_normalization(h, n=3)
        h = F.leaky_relu(F.reshape(F.reshape(h, (2, -1)), h.shape), 0.1) + F.sigmoid(h)
        return F.softmax(self.fc(h))


@pytest.fixture
def x():
    return chainer.Variable(numpy.random.RandomState(1).uniform(-1, 1, (2, 3, 8, 8))
                            .astype(numpy.float32))


def read_net(path):
    net = pb.NetParameter()
    net.MergeFromString(path.read_bytes())
    return net


def test_caffe_function_reads_the_export_back_to_the_model_outputs(tmp_path, x):
    model = randomize(Everything(), x)
    caffe.export(model, [x], str(tmp_path))
    with chainer.using_config("train", False):
        expected = model(x).array
    func = CaffeFunction(str(tmp_path / "chainer_model.caffemodel"))
    last_blob = func.layers[-1][2][0]
    with chainer.using_config("train", False):
        y, = func(inputs={"data": x}, outputs=[last_blob])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_layers_names_bottoms_and_blobs(tmp_path, x):
    model = randomize(Everything(), x)
    caffe.export(model, [x], str(tmp_path), graph_name="everything")
    net = read_net(tmp_path / "chainer_model.caffemodel")
    assert net.name == "everything"
    types = [layer.type for layer in net.layer]
    assert types == [
        "Convolution", "ReLU", "Convolution", "Deconvolution", "BatchNorm", "Scale",
        "BatchNorm", "Scale", "Concat", "Pooling", "Pooling", "Eltwise", "LRN", "Sigmoid",
        "Reshape", "Reshape", "ReLU", "Eltwise", "Reshape", "InnerProduct", "Softmax"]
    by_name = {layer.name: layer for layer in net.layer}
    assert all(layer.phase == pb.TEST for layer in net.layer)

    conv = by_name["Convolution2DFunction-0-1"]
    assert list(conv.bottom) == ["data"]
    param = conv.convolution_param
    assert (param.kernel_h, param.kernel_w, param.stride_h, param.stride_w) == (3, 2, 1, 2)
    assert (param.pad_h, param.pad_w, param.num_output, param.group) == (1, 0, 4, 1)
    assert list(conv.blobs[0].shape.dim) == [4, 3, 3, 2]
    numpy.testing.assert_array_equal(conv.blobs[0].data, model.conv.W.array.ravel())

    grouped = by_name["Convolution2DFunction-2-1"]
    assert (grouped.convolution_param.group, list(grouped.convolution_param.dilation)) == (
        2, [2, 2])
    assert not grouped.convolution_param.bias_term and len(grouped.blobs) == 1

    up = by_name["Deconvolution2DFunction-3-1"]
    assert up.convolution_param.num_output == 6
    assert [list(blob.shape.dim) for blob in up.blobs] == [[4, 3, 2, 2], [6]]

    norm, scale = by_name["FixedBatchNormalization-4-1_bn"], by_name["FixedBatchNormalization-4-1"]
    assert list(scale.bottom) == ["FixedBatchNormalization-4-1_bn"]
    assert norm.batch_norm_param.use_global_stats
    numpy.testing.assert_allclose(norm.blobs[0].data, model.bn.avg_mean)
    numpy.testing.assert_array_equal(norm.blobs[2].data, [1.0])
    numpy.testing.assert_allclose(scale.blobs[1].data, model.bn.beta.array)
    bare_scale = by_name["FixedBatchNormalization-4-2"]
    numpy.testing.assert_array_equal(bare_scale.blobs[0].data, numpy.ones(6))
    numpy.testing.assert_array_equal(bare_scale.blobs[1].data, numpy.zeros(6))

    assert by_name["LocalResponseNormalization-8-1"].lrn_param.alpha == pytest.approx(3e-4)
    # A reshape of a reshape reads the first non-reshape blob.
    assert list(by_name["Reshape-10-1"].bottom) == ["LocalResponseNormalization-8-1"]
    assert by_name["LeakyReLU-11-1"].relu_param.negative_slope == pytest.approx(0.1)
    assert list(by_name["_ + _-12-1"].bottom) == ["LeakyReLU-11-1", "Sigmoid-9-1"]


def test_prototxt_holds_the_structure_with_an_input_layer(tmp_path, x):
    caffe.export(randomize(Everything(), x), [x], str(tmp_path), graph_name="g")
    definition = pb.NetParameter()
    pb.text_format.Parse((tmp_path / "chainer_model.prototxt").read_text(), definition)
    weights = read_net(tmp_path / "chainer_model.caffemodel")
    data = definition.layer[0]
    assert (definition.name, data.name, data.type, list(data.top)) == ("g", "data", "Input",
                                                                      ["data"])
    assert list(data.input_param.shape[0].dim) == [2, 3, 8, 8]
    assert [layer.name for layer in definition.layer[1:]] == [
        layer.name for layer in weights.layer]
    assert not any(layer.blobs for layer in definition.layer)


def test_export_params_false_writes_only_the_prototxt(tmp_path, x):
    caffe.export(randomize(Everything(), x), [x], str(tmp_path), export_params=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["chainer_model.prototxt"]


def test_no_directory_writes_nothing_but_still_checks_the_graph(tmp_path, monkeypatch, x):
    monkeypatch.chdir(tmp_path)
    assert caffe.export(randomize(Everything(), x), [x]) is None
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(NotImplementedError, match=r"^Cannot convert, name=Tanh-0-1, rank=0, "
                                                  r"label=Tanh, inputs=\['data'\]"):
        caffe.export(F.tanh, [x])


def test_model_runs_in_test_mode_with_backprop_forced(x):
    seen = []

    def model(h):
        seen.append((chainer.config.train, chainer.config.enable_backprop))
        return F.relu(h)

    with chainer.no_backprop_mode():
        caffe.export(model, [x])
    assert seen == [(False, True)]


def test_argument_and_result_errors(x):
    with pytest.raises(TypeError, match="args must be a list or tuple of Variables"):
        caffe.export(F.relu, x)
    with pytest.raises(NotImplementedError,
                       match=r"exactly one Variable \(the net's data blob\), got 2"):
        caffe.export(F.relu, [x, x])
    with pytest.raises(TypeError, match="args must hold Variables, got ndarray"):
        caffe.export(F.relu, [x.array])
    with pytest.raises(TypeError, match="must return a Variable or a list or tuple"):
        caffe.export(lambda h: F.relu(h).array, [x])


def test_three_dimensional_pooling_cannot_be_converted():
    volume = chainer.Variable(numpy.zeros((1, 1, 2, 2, 2), numpy.float32))
    with pytest.raises(NotImplementedError, match="label=MaxPoolingND"):
        caffe.export(lambda h: F.max_pooling_nd(h, 2), [volume])


def test_softmax_along_another_axis_keeps_the_axis(tmp_path, x):
    caffe.export(lambda h: F.softmax(h, axis=2), [x], str(tmp_path))
    layer, = read_net(tmp_path / "chainer_model.caffemodel").layer
    assert (layer.type, layer.softmax_param.axis) == ("Softmax", 2)


def test_same_label_and_rank_are_numbered_in_input_order(tmp_path, x):
    caffe.export(lambda h: F.concat((F.relu(h), F.sigmoid(h), F.relu(h))), [x], str(tmp_path))
    names = [layer.name for layer in read_net(tmp_path / "chainer_model.caffemodel").layer]
    assert names[-1] == "Concat-1-1"
    assert names.index("ReLU-0-1") < names.index("Sigmoid-0-1") < names.index("ReLU-0-2")
    with pytest.raises(NotImplementedError, match="label=__neg__"):
        caffe.export(lambda h: -h, [x])


def test_several_outputs_are_all_exported(tmp_path, x):
    caffe.export(lambda h: (F.relu(h), F.sigmoid(h)), [x], str(tmp_path))
    types = sorted(layer.type for layer in read_net(tmp_path / "chainer_model.caffemodel").layer)
    assert types == ["ReLU", "Sigmoid"]


def test_exports_a_model_whose_arrays_live_on_the_device(tmp_path, xp, x):
    model = randomize(Everything(), x)
    with chainer.using_config("train", False):
        expected = model(x).array
    if xp is not numpy:
        model.to_gpu()
    caffe.export(model, [chainer.Variable(xp.asarray(x.array))], str(tmp_path))
    func = CaffeFunction(str(tmp_path / "chainer_model.caffemodel"))
    with chainer.using_config("train", False):
        y, = func(inputs={"data": x}, outputs=[func.layers[-1][2][0]])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
