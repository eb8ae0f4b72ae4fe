"""Chainer's Caffe support as Chainer 7.8.1 users see it: what ``CaffeFunction`` computes for
each layer type it reads, its warnings and errors, and the layers and files
``exporters.caffe.export`` writes; and that Chainer itself and the target read each other's
exports. Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import inspect
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
F = importlib.import_module(chainer.__name__ + ".functions")
L = importlib.import_module(chainer.__name__ + ".links")
caffe_links = importlib.import_module(chainer.__name__ + ".links.caffe")
caffe = importlib.import_module(chainer.__name__ + ".exporters.caffe")
pb = importlib.import_module(chainer.__name__ + ".links.caffe.protobuf3.caffe_pb2")

CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")
rng = numpy.random.RandomState(0)


def uniform(*shape):
    return rng.uniform(-1, 1, shape).astype(numpy.float32)


def add_blob(layer, array):
    blob = layer.blobs.add()
    array = numpy.asarray(array, dtype=numpy.float32)
    blob.shape.dim.extend(array.shape)
    blob.data.extend(array.ravel().tolist())


def add_layer(net, type_, name, bottom=("data",), top=None, blobs=(), **params):
    layer = net.layer.add()
    layer.name, layer.type = name, type_
    layer.bottom.extend(bottom)
    layer.top.extend(top or [name])
    for field, values in params.items():
        for key, value in values.items():
            if isinstance(value, list):
                getattr(getattr(layer, field), key).extend(value)
            else:
                setattr(getattr(layer, field), key, value)
    for blob in blobs:
        add_blob(layer, blob)
    return layer


def load(tmp_path, net):
    path = tmp_path / "net.caffemodel"
    path.write_bytes(net.SerializeToString())
    return caffe_links.CaffeFunction(str(path))


def run(func, inputs, outputs):
    inputs = {name: chainer.Variable(array) for name, array in inputs.items()}
    with chainer.using_config("train", False):
        return [y.array for y in func(inputs=inputs, outputs=outputs)]


# CaffeFunction, one layer type at a time.

def test_convolution_groups_become_a_dense_block_diagonal_weight(tmp_path):
    x, w, b = uniform(1, 4, 5, 5), uniform(6, 2, 3, 3), uniform(6)
    net = pb.NetParameter()
    add_layer(net, "Convolution", "conv", blobs=(w, b), convolution_param=dict(
        num_output=6, group=2, kernel_size=[3], pad=[1], stride=[2]))
    func = load(tmp_path, net)
    assert func.conv.W.shape == (6, 4, 3, 3)
    numpy.testing.assert_array_equal(func.conv.W.array[:3, 2:], 0)
    numpy.testing.assert_array_equal(func.conv.W.array[3:, 2:], w[3:])
    y, = run(func, {"data": x}, ["conv"])
    halves = [F.convolution_2d(x[:, 2 * g:2 * g + 2], w[3 * g:3 * g + 3], b[3 * g:3 * g + 3],
                               stride=2, pad=1).array for g in range(2)]
    numpy.testing.assert_allclose(y, numpy.concatenate(halves, axis=1), rtol=1e-5, atol=1e-6)


def test_deconvolution_reads_in_out_weights(tmp_path):
    x, w, b = uniform(1, 4, 3, 3), uniform(4, 2, 2, 2), uniform(2)
    net = pb.NetParameter()
    add_layer(net, "Deconvolution", "up", blobs=(w, b),
              convolution_param=dict(num_output=2, kernel_size=[2], stride=[2]))
    func = load(tmp_path, net)
    y, = run(func, {"data": x}, ["up"])
    expected = numpy.einsum("ncij,cokl->noikjl", x, w).reshape(1, 2, 6, 6) + b[:, None, None]
    numpy.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_inner_product_and_its_axis_error(tmp_path):
    x, w, b = uniform(2, 3, 2), uniform(4, 6), uniform(4)
    net = pb.NetParameter()
    add_layer(net, "InnerProduct", "fc", blobs=(w, b), inner_product_param=dict(num_output=4))
    y, = run(load(tmp_path, net), {"data": x}, ["fc"])
    numpy.testing.assert_allclose(y, x.reshape(2, 6) @ w.T + b, rtol=1e-5, atol=1e-6)
    net.layer[0].inner_product_param.axis = 2
    with pytest.raises(RuntimeError, match="^Non-default axis in InnerProduct is not supported$"):
        load(tmp_path, net)


def test_pooling_layers(tmp_path):
    x = uniform(1, 2, 4, 4)
    net = pb.NetParameter()
    add_layer(net, "Pooling", "max", pooling_param=dict(pool=0, kernel_size=2, stride=2))
    add_layer(net, "Pooling", "ave", pooling_param=dict(pool=1, kernel_size=2, stride=2))
    add_layer(net, "Pooling", "global", pooling_param=dict(pool=0, global_pooling=True))
    max_y, ave_y, global_y = run(load(tmp_path, net), {"data": x}, ["max", "ave", "global"])
    blocks = x.reshape(1, 2, 2, 2, 2, 2)
    numpy.testing.assert_array_equal(max_y, blocks.max(axis=(3, 5)))
    numpy.testing.assert_allclose(ave_y, blocks.mean(axis=(3, 5)), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_array_equal(global_y, x.max(axis=(2, 3), keepdims=True))
    net.layer[0].pooling_param.pool = 2
    with pytest.raises(RuntimeError, match="^Stochastic pooling is not supported$"):
        load(tmp_path, net)


def test_elementwise_layers(tmp_path):
    x = uniform(3, 4)
    net = pb.NetParameter()
    add_layer(net, "ReLU", "relu")
    add_layer(net, "ReLU", "leaky", relu_param=dict(negative_slope=0.5))
    add_layer(net, "Sigmoid", "sigmoid")
    add_layer(net, "Softmax", "softmax")
    add_layer(net, "Dropout", "dropout")
    relu, leaky, sigmoid, softmax, dropout = run(
        load(tmp_path, net), {"data": x}, ["relu", "leaky", "sigmoid", "softmax", "dropout"])
    numpy.testing.assert_array_equal(relu, numpy.maximum(x, 0))
    numpy.testing.assert_allclose(leaky, numpy.where(x > 0, x, x / 2), rtol=1e-6)
    numpy.testing.assert_allclose(sigmoid, 1 / (1 + numpy.exp(-x)), rtol=1e-5)
    numpy.testing.assert_allclose(softmax, numpy.exp(x) / numpy.exp(x).sum(1, keepdims=True),
                                  rtol=1e-5)
    numpy.testing.assert_array_equal(dropout, x)


def test_lrn_and_its_region_error(tmp_path):
    x = uniform(1, 5, 1, 2)
    net = pb.NetParameter()
    add_layer(net, "LRN", "lrn", lrn_param=dict(local_size=5, alpha=0.5, beta=0.75, k=1.0))
    y, = run(load(tmp_path, net), {"data": x}, ["lrn"])
    padded = numpy.pad(x ** 2, ((0, 0), (2, 2), (0, 0), (0, 0)))
    window = sum(padded[:, i:i + 5] for i in range(5))
    numpy.testing.assert_allclose(y, x / (1 + 0.1 * window) ** 0.75, rtol=1e-5)
    net.layer[0].lrn_param.norm_region = 1
    with pytest.raises(RuntimeError, match="^Within-channel LRN is not supported$"):
        load(tmp_path, net)


def test_concat_eltwise_split_and_slice(tmp_path):
    a, b = uniform(2, 4), uniform(2, 4)
    net = pb.NetParameter()
    add_layer(net, "Split", "split", bottom=["a"], top=["a1", "a2"])
    add_layer(net, "Concat", "cat", bottom=["a1", "b"])
    add_layer(net, "Eltwise", "prod", bottom=["a2", "b"], eltwise_param=dict(operation=0))
    add_layer(net, "Eltwise", "sum", bottom=["a", "b"], eltwise_param=dict(coeff=[0.5, 2.0]))
    add_layer(net, "Eltwise", "max", bottom=["a", "b"], eltwise_param=dict(operation=2))
    add_layer(net, "Slice", "slice", bottom=["cat"], top=["s1", "s2"],
              slice_param=dict(slice_point=[3]))
    func = load(tmp_path, net)
    assert func.split_map == {"a1": "a", "a2": "a"}
    assert ("cat", ["a", "b"], ["cat"]) in func.layers
    cat, prod, total, maximum, s1, s2 = run(
        func, {"a": a, "b": b}, ["cat", "prod", "sum", "max", "s1", "s2"])
    numpy.testing.assert_array_equal(cat, numpy.concatenate([a, b], axis=1))
    numpy.testing.assert_allclose(prod, a * b, rtol=1e-6)
    numpy.testing.assert_allclose(total, a / 2 + 2 * b, rtol=1e-6)
    numpy.testing.assert_array_equal(maximum, numpy.maximum(a, b))
    numpy.testing.assert_array_equal(s1, cat[:, :3])
    numpy.testing.assert_array_equal(s2, cat[:, 3:])


def test_batch_norm_scale_and_reshape(tmp_path):
    x = uniform(2, 3, 2, 2)
    mean, var, gamma, beta = uniform(3), numpy.abs(uniform(3)) + 1, uniform(3), uniform(3)
    net = pb.NetParameter()
    add_layer(net, "BatchNorm", "bn", blobs=(mean * 4, var * 4, [4.0]),
              batch_norm_param=dict(use_global_stats=True, eps=1e-4))
    add_layer(net, "Scale", "scale", bottom=["bn"], blobs=(gamma, beta),
              scale_param=dict(bias_term=True))
    flat = add_layer(net, "Reshape", "flat", bottom=["scale"])
    flat.reshape_param.shape.dim.extend([2, -1])
    func = load(tmp_path, net)
    numpy.testing.assert_allclose(func.bn.avg_mean, mean, rtol=1e-6)
    flat, = run(func, {"data": x}, ["flat"])
    normalized = (x - mean[:, None, None]) / numpy.sqrt(var[:, None, None] + 1e-4)
    expected = gamma[:, None, None] * normalized + beta[:, None, None]
    numpy.testing.assert_allclose(flat, expected.reshape(2, 12), rtol=1e-4, atol=1e-5)


def test_softmax_with_loss(tmp_path):
    x, t = uniform(3, 4), numpy.array([1, 0, 3], numpy.int32)
    net = pb.NetParameter()
    add_layer(net, "SoftmaxWithLoss", "loss", bottom=["data", "label"])
    loss, = run(load(tmp_path, net), {"data": x, "label": t}, ["loss"])
    log_probs = x - numpy.log(numpy.exp(x).sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(loss, -log_probs[numpy.arange(3), t].mean(), rtol=1e-5)


def test_unsupported_layers_warn_and_data_layers_do_not(tmp_path):
    net = pb.NetParameter()
    add_layer(net, "Data", "reader", bottom=[], top=["data"])
    add_layer(net, "Input", "data", bottom=[], top=["data"])
    add_layer(net, "ReLU", "relu")
    with pytest.warns(UserWarning) as record:
        func = load(tmp_path, net)
    assert [str(warning.message) for warning in record] == [
        'Skip the layer "data", since CaffeFunction does not support Input layer']
    assert func.layers == [("relu", ["data"], ["relu"])]
    assert sorted(func.forwards) == ["relu"]


def test_v1_format_and_its_warning(tmp_path):
    x = uniform(2, 3)
    net = pb.NetParameter()
    relu = net.layers.add()
    relu.name, relu.type = "relu", pb.V1LayerParameter.RELU
    relu.bottom.append("data")
    relu.top.append("relu")
    tanh = net.layers.add()
    tanh.name, tanh.type = "tanh", pb.V1LayerParameter.NONE
    with pytest.warns(UserWarning, match='^Skip the layer "tanh", since CaffeFunction does not '
                                         'support it$'):
        func = load(tmp_path, net)
    y, = run(func, {"data": x}, ["relu"])
    numpy.testing.assert_array_equal(y, numpy.maximum(x, 0))


def test_call_arguments(tmp_path):
    x = uniform(2, 3)
    net = pb.NetParameter()
    add_layer(net, "ReLU", "relu")
    add_layer(net, "Sigmoid", "sigmoid", bottom=["relu"])
    add_layer(net, "Sigmoid", "orphan", bottom=["missing"])
    func = load(tmp_path, net)
    relu, = func(inputs={"data": x}, outputs=["relu"], disable=["sigmoid"])
    assert set(func.variables) == {"data", "relu"}
    numpy.testing.assert_array_equal(relu.array, numpy.maximum(x, 0))
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        func(inputs={"data": x}, outputs=["relu"], train=False)


# exporters.caffe.export

class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, 3, 1, 1)
            self.bn = L.BatchNormalization(4)
            self.fc = L.Linear(128, 5)

    def forward(self, x):
        h = self.bn(F.relu(self.conv(x)))
        h = F.concat((F.max_pooling_2d(h, 2), F.average_pooling_2d(h, 2)))
        h = F.local_response_normalization(h)
        h = F.reshape(F.reshape(h, (2, -1)), (2, 8, 4, 4))
        h = F.leaky_relu(h, 0.2) + F.sigmoid(h)
        return F.softmax(self.fc(h))


def make_net(numpy, Net):
    """The exported model and its input, the same on every implementation."""
    model = Net()
    rng = numpy.random.RandomState(3)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-1, 1, param.shape)
    model.bn.avg_mean[...] = rng.uniform(-1, 1, 4)
    model.bn.avg_var[...] = rng.uniform(0.5, 1.5, 4)
    return model, rng.uniform(-1, 1, (2, 3, 8, 8)).astype(numpy.float32)


EXPECTED_LAYERS = {
    "Convolution2DFunction-0-1": ("Convolution", ["data"]),
    "ReLU-1-1": ("ReLU", ["Convolution2DFunction-0-1"]),
    "FixedBatchNormalization-2-1_bn": ("BatchNorm", ["ReLU-1-1"]),
    "FixedBatchNormalization-2-1": ("Scale", ["FixedBatchNormalization-2-1_bn"]),
    "MaxPoolingND-3-1": ("Pooling", ["FixedBatchNormalization-2-1"]),
    "AveragePooling2D-3-1": ("Pooling", ["FixedBatchNormalization-2-1"]),
    "Concat-4-1": ("Concat", ["MaxPoolingND-3-1", "AveragePooling2D-3-1"]),
    "LocalResponseNormalization-5-1": ("LRN", ["Concat-4-1"]),
    "Reshape-6-1": ("Reshape", ["LocalResponseNormalization-5-1"]),
    "Reshape-7-1": ("Reshape", ["LocalResponseNormalization-5-1"]),
    "LeakyReLU-8-1": ("ReLU", ["Reshape-7-1"]),
    "Sigmoid-8-1": ("Sigmoid", ["Reshape-7-1"]),
    "_ + _-9-1": ("Eltwise", ["LeakyReLU-8-1", "Sigmoid-8-1"]),
    # Linear flattens its 4-d input with a reshape of its own.
    "Reshape-10-1": ("Reshape", ["_ + _-9-1"]),
    "LinearFunction-11-1": ("InnerProduct", ["Reshape-10-1"]),
    "Softmax-12-1": ("Softmax", ["LinearFunction-11-1"]),
}


def read_layers(path):
    net = pb.NetParameter()
    net.MergeFromString(pathlib.Path(path).read_bytes())
    return {layer.name: (layer.type, list(layer.bottom)) for layer in net.layer}


def test_export_writes_named_layers_that_read_back_to_the_model(tmp_path):
    model, x = make_net(numpy, Net)
    caffe.export(model, [chainer.Variable(x)], str(tmp_path), graph_name="net")
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "chainer_model.caffemodel", "chainer_model.prototxt"]
    assert read_layers(tmp_path / "chainer_model.caffemodel") == EXPECTED_LAYERS
    prototxt = (tmp_path / "chainer_model.prototxt").read_text()
    assert prototxt.startswith('name: "net"')
    assert 'type: "Input"' in prototxt and 'name: "Softmax-12-1"' in prototxt
    func = caffe_links.CaffeFunction(str(tmp_path / "chainer_model.caffemodel"))
    with chainer.using_config("train", False):
        y, = func(inputs={"data": x}, outputs=["Softmax-12-1"])
        expected = model(x).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_export_without_params_or_directory(tmp_path, monkeypatch):
    model, x = make_net(numpy, Net)
    caffe.export(model, [chainer.Variable(x)], str(tmp_path), export_params=False)
    assert [path.name for path in tmp_path.iterdir()] == ["chainer_model.prototxt"]
    monkeypatch.chdir(tmp_path / "..")
    before = sorted(os.listdir("."))
    caffe.export(model, [chainer.Variable(x)])
    assert sorted(os.listdir(".")) == before


def test_export_refuses_unsupported_functions():
    x = chainer.Variable(uniform(2, 3))
    with pytest.raises(Exception, match=r"^Cannot convert, name=Tanh-0-1, rank=0, label=Tanh, "
                                        r"inputs=\['data'\]"):
        caffe.export(F.tanh, [x])
    with pytest.raises(NotImplementedError):
        caffe.export(F.relu, [x, x])


# Interchange with Chainer 7.8.1 itself.

_CHAINER_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
    import numpy, chainer
    import chainer.functions as F, chainer.links as L
    from chainer.exporters import caffe
    from chainer.links.caffe import CaffeFunction
    out = sys.argv[1]
    exec(sys.argv[2])
    model, x = make_net(numpy, Net)
    os.makedirs(out + "/chainer")
    caffe.export(model, [chainer.Variable(x)], out + "/chainer")
    func = CaffeFunction(out + "/target/chainer_model.caffemodel")
    with chainer.using_config("train", False):
        y, = func(inputs={"data": x}, outputs=["Softmax-12-1"])
    numpy.save(out + "/chainer_reads_target.npy", y.array)
""")


def test_chainer_and_the_target_read_each_others_exports(tmp_path):
    if not CHAINER_PYTHON.exists():
        pytest.skip(f"Chainer 7.8.1 interpreter not found at {CHAINER_PYTHON}: cannot exchange "
                    "Caffe files with Chainer")
    model, x = make_net(numpy, Net)
    (tmp_path / "target").mkdir()
    caffe.export(model, [chainer.Variable(x)], str(tmp_path / "target"))
    source = inspect.getsource(Net) + "\n" + inspect.getsource(make_net)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    subprocess.run([str(CHAINER_PYTHON), "-c", _CHAINER_SCRIPT, str(tmp_path), source],
                   check=True, env=env, timeout=120, capture_output=True)
    with chainer.using_config("train", False):
        expected = model(x).array
    numpy.testing.assert_allclose(numpy.load(tmp_path / "chainer_reads_target.npy"), expected,
                                  rtol=1e-5, atol=1e-6)
    chainer_file = tmp_path / "chainer" / "chainer_model.caffemodel"
    assert read_layers(chainer_file) == read_layers(tmp_path / "target/chainer_model.caffemodel")
    func = caffe_links.CaffeFunction(str(chainer_file))
    with chainer.using_config("train", False):
        y, = func(inputs={"data": x}, outputs=["Softmax-12-1"])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
