"""CaffeFunction: each Caffe layer type it reads, checked against NumPy on nets built in the test
with the package's own Caffe message classes, plus skipping, disabling, V1 files and errors."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy
import pytest

pytest.importorskip("google.protobuf")

import chainer_compat as chainer  # noqa: E402
from chainer_compat.links.caffe import CaffeFunction, _proto  # noqa: E402

pb = _proto.load()
rng = numpy.random.RandomState(0)


def uniform(*shape):
    return rng.uniform(-1, 1, shape).astype(numpy.float32)


def add_blob(layer, array, legacy=False):
    blob = layer.blobs.add()
    array = numpy.asarray(array, dtype=numpy.float32)
    if legacy:
        blob.num, blob.channels, blob.height, blob.width = (1,) * (4 - array.ndim) + array.shape
    else:
        blob.shape.dim.extend(array.shape)
    blob.data.extend(array.ravel().tolist())


def layer(net, type, name, bottom=("data",), top=None, **params):
    new = net.layer.add(name=name, type=type, bottom=list(bottom), top=list(top or [name]))
    for field, values in params.items():
        for key, value in values.items():
            target = getattr(new, field)
            if isinstance(value, (list, tuple)):
                getattr(target, key).extend(value)
            else:
                setattr(target, key, value)
    return new


def load(tmp_path, net):
    path = tmp_path / "net.caffemodel"
    path.write_bytes(net.SerializeToString())
    return CaffeFunction(str(path))


def run(func, inputs, outputs, **kwargs):
    with chainer.using_config("train", False):
        return [y.array for y in func(inputs=inputs, outputs=outputs, **kwargs)]


def numpy_conv(x, w, b, stride, pad, dilation=(1, 1), groups=1):
    """Direct grouped, dilated cross-correlation."""
    n, c, h, width = x.shape
    out_channels, _, kh, kw = w.shape
    x = numpy.pad(x, ((0, 0), (0, 0), (pad[0],) * 2, (pad[1],) * 2))
    ekh, ekw = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    oh = (x.shape[2] - ekh) // stride[0] + 1
    ow = (x.shape[3] - ekw) // stride[1] + 1
    y = numpy.zeros((n, out_channels, oh, ow))
    cin, cout = c // groups, out_channels // groups
    for g in range(groups):
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * cin:(g + 1) * cin,
                          i * stride[0]:i * stride[0] + ekh:dilation[0],
                          j * stride[1]:j * stride[1] + ekw:dilation[1]]
                y[:, g * cout:(g + 1) * cout, i, j] = numpy.einsum(
                    "nchw,ochw->no", patch, w[g * cout:(g + 1) * cout])
    return y + (0 if b is None else b[None, :, None, None])


def numpy_deconv(x, w, b, stride, pad, groups=1):
    """Transposed convolution: scatter each input pixel through the kernel."""
    n, c, h, width = x.shape
    _, cout, kh, kw = w.shape
    full = numpy.zeros((n, cout * groups, (h - 1) * stride + kh, (width - 1) * stride + kw))
    cin = c // groups
    for g in range(groups):
        for i in range(h):
            for j in range(width):
                full[:, g * cout:(g + 1) * cout, i * stride:i * stride + kh,
                     j * stride:j * stride + kw] += numpy.einsum(
                    "nc,cohw->nohw", x[:, g * cin:(g + 1) * cin, i, j],
                    w[g * cin:(g + 1) * cin])
    y = full[:, :, pad:full.shape[2] - pad, pad:full.shape[3] - pad]
    return y + b[None, :, None, None]


@pytest.mark.parametrize("groups,kernel,dilation", [(1, (3, 2), 1), (2, (3, 3), 1), (1, (3, 3), 2)])
def test_convolution_matches_numpy(tmp_path, groups, kernel, dilation):
    x, w, b = uniform(2, 4, 7, 6), uniform(6, 4 // groups, *kernel), uniform(6)
    net = pb.NetParameter()
    conv = layer(net, "Convolution", "conv", convolution_param=dict(
        num_output=6, group=groups, kernel_h=kernel[0], kernel_w=kernel[1], stride=[2], pad=[1],
        dilation=[dilation] if dilation > 1 else []))
    add_blob(conv, w)
    add_blob(conv, b)
    func = load(tmp_path, net)
    y, = run(func, {"data": x}, ["conv"])
    expected = numpy_conv(x, w, b, (2, 2), (1, 1), (dilation, dilation), groups)
    numpy.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    # compat: a grouped layer is one dense convolution, so its W has all input channels.
    assert func.conv.W.shape == (6, 4) + kernel
    assert list(func.params()) and func.forwards["conv"] is not None


def test_convolution_without_bias_and_with_legacy_blob(tmp_path):
    x, w = uniform(1, 2, 5, 5), uniform(3, 2, 3, 3)
    net = pb.NetParameter()
    conv = layer(net, "Convolution", "conv",
                 convolution_param=dict(num_output=3, kernel_size=[3], bias_term=False))
    add_blob(conv, w, legacy=True)
    func = load(tmp_path, net)
    y, = run(func, {"data": x}, ["conv"])
    numpy.testing.assert_allclose(y, numpy_conv(x, w, None, (1, 1), (0, 0)), rtol=1e-5,
                                  atol=1e-5)
    assert func.conv.b is None


@pytest.mark.parametrize("groups", [1, 2])
def test_deconvolution_matches_numpy(tmp_path, groups):
    x, w, b = uniform(2, 4, 3, 3), uniform(4, 3, 3, 3), uniform(3 * groups)
    net = pb.NetParameter()
    deconv = layer(net, "Deconvolution", "up", convolution_param=dict(
        num_output=3 * groups, group=groups, kernel_size=[3], stride=[2], pad=[1]))
    add_blob(deconv, w)
    add_blob(deconv, b)
    y, = run(load(tmp_path, net), {"data": x}, ["up"])
    numpy.testing.assert_allclose(y, numpy_deconv(x, w, b, 2, 1, groups), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("legacy", [False, True])
def test_inner_product_matches_numpy(tmp_path, legacy):
    x, w, b = uniform(2, 3, 2, 2), uniform(5, 12), uniform(5)
    net = pb.NetParameter()
    fc = layer(net, "InnerProduct", "fc", inner_product_param=dict(num_output=5))
    add_blob(fc, w, legacy=legacy)
    add_blob(fc, b, legacy=legacy)
    y, = run(load(tmp_path, net), {"data": x}, ["fc"])
    numpy.testing.assert_allclose(y, x.reshape(2, -1) @ w.T + b, rtol=1e-5, atol=1e-6)


def test_inner_product_refuses_other_axis(tmp_path):
    net = pb.NetParameter()
    fc = layer(net, "InnerProduct", "fc", inner_product_param=dict(num_output=2, axis=2))
    add_blob(fc, uniform(2, 3))
    with pytest.raises(RuntimeError, match="Non-default axis in InnerProduct"):
        load(tmp_path, net)


def test_inner_product_refuses_three_dimensional_blob(tmp_path):
    net = pb.NetParameter()
    fc = layer(net, "InnerProduct", "fc", inner_product_param=dict(num_output=2))
    add_blob(fc, uniform(2, 3, 1))
    with pytest.raises(RuntimeError, match="3-dimensional array is not supported"):
        load(tmp_path, net)


def test_pooling_max_average_and_global(tmp_path):
    x = uniform(2, 3, 4, 4)
    net = pb.NetParameter()
    layer(net, "Pooling", "max", pooling_param=dict(pool=0, kernel_size=2, stride=2))
    layer(net, "Pooling", "ave", pooling_param=dict(pool=1, kernel_h=2, kernel_w=2, stride_h=2,
                                                   stride_w=2))
    layer(net, "Pooling", "global", pooling_param=dict(pool=1, global_pooling=True))
    max_y, ave_y, global_y = run(load(tmp_path, net), {"data": x}, ["max", "ave", "global"])
    blocks = x.reshape(2, 3, 2, 2, 2, 2)
    numpy.testing.assert_allclose(max_y, blocks.max(axis=(3, 5)), rtol=1e-6)
    numpy.testing.assert_allclose(ave_y, blocks.mean(axis=(3, 5)), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(global_y, x.mean(axis=(2, 3), keepdims=True), rtol=1e-5,
                                  atol=1e-6)


def test_stochastic_pooling_is_refused(tmp_path):
    net = pb.NetParameter()
    layer(net, "Pooling", "p", pooling_param=dict(pool=2, kernel_size=2))
    with pytest.raises(RuntimeError, match="Stochastic pooling is not supported"):
        load(tmp_path, net)


def test_activations_and_dropout(tmp_path):
    x = uniform(2, 5)
    net = pb.NetParameter()
    layer(net, "ReLU", "relu")
    layer(net, "ReLU", "leaky", relu_param=dict(negative_slope=0.25))
    layer(net, "Sigmoid", "sigmoid")
    layer(net, "Softmax", "softmax")
    layer(net, "Dropout", "drop", dropout_param=dict(dropout_ratio=0.3))
    func = load(tmp_path, net)
    relu, leaky, sigmoid, softmax, drop = run(
        func, {"data": x}, ["relu", "leaky", "sigmoid", "softmax", "drop"])
    numpy.testing.assert_allclose(relu, numpy.maximum(x, 0))
    numpy.testing.assert_allclose(leaky, numpy.where(x > 0, x, 0.25 * x), rtol=1e-6)
    numpy.testing.assert_allclose(sigmoid, 1 / (1 + numpy.exp(-x)), rtol=1e-5)
    exp = numpy.exp(x - x.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(softmax, exp / exp.sum(axis=1, keepdims=True), rtol=1e-5)
    numpy.testing.assert_array_equal(drop, x)  # dropout is the identity outside training
    with chainer.using_config("train", True):
        dropped, = func(inputs={"data": numpy.ones((100, 100), numpy.float32)}, outputs=["drop"])
    assert 0.2 < float((dropped.array == 0).mean()) < 0.4


@pytest.mark.parametrize("engine,expected", [(0, "auto"), (1, "never"), (2, "always")])
def test_softmax_and_sigmoid_engines_set_use_cudnn(tmp_path, monkeypatch, engine, expected):
    net = pb.NetParameter()
    layer(net, "Softmax", "softmax", softmax_param=dict(engine=engine))
    layer(net, "Sigmoid", "sigmoid", sigmoid_param=dict(engine=engine))
    seen = []
    for name in ("softmax", "sigmoid"):
        original = getattr(chainer.functions, name)
        monkeypatch.setattr(chainer.functions, name, lambda x, original=original: (
            seen.append(chainer.config.use_cudnn) or original(x)))
    func = load(tmp_path, net)
    with chainer.using_config("use_cudnn", "auto"):
        run(func, {"data": uniform(1, 3)}, ["softmax", "sigmoid"])
    assert seen == [expected, expected]


def test_softmax_refuses_other_axis(tmp_path):
    for type_ in ("Softmax", "SoftmaxWithLoss"):
        net = pb.NetParameter()
        layer(net, type_, "s", softmax_param=dict(axis=2))
        with pytest.raises(RuntimeError, match="Softmax along non-channel axis"):
            load(tmp_path, net)


def test_softmax_with_loss_is_softmax_cross_entropy(tmp_path):
    x, t = uniform(4, 3), numpy.array([0, 2, 1, 1], numpy.int32)
    net = pb.NetParameter()
    layer(net, "SoftmaxWithLoss", "loss", bottom=["data", "label"])
    loss, = run(load(tmp_path, net), {"data": x, "label": t}, ["loss"])
    log_softmax = x - numpy.log(numpy.exp(x).sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(loss, -log_softmax[numpy.arange(4), t].mean(), rtol=1e-5)


def test_lrn_divides_alpha_by_the_window(tmp_path):
    x = uniform(1, 6, 2, 2)
    net = pb.NetParameter()
    layer(net, "LRN", "lrn", lrn_param=dict(local_size=3, alpha=0.3, beta=0.75, k=2.0))
    y, = run(load(tmp_path, net), {"data": x}, ["lrn"])
    padded = numpy.pad(x ** 2, ((0, 0), (1, 1), (0, 0), (0, 0)))
    window = sum(padded[:, i:i + 6] for i in range(3))
    numpy.testing.assert_allclose(y, x / (2.0 + 0.1 * window) ** 0.75, rtol=1e-5)


def test_within_channel_lrn_is_refused(tmp_path):
    net = pb.NetParameter()
    layer(net, "LRN", "lrn", lrn_param=dict(norm_region=1))
    with pytest.raises(RuntimeError, match="Within-channel LRN is not supported"):
        load(tmp_path, net)


@pytest.mark.parametrize("axis,concat_dim,expected_axis", [(1, 1, 1), (2, 1, 2), (1, 3, 3)])
def test_concat_axis_and_legacy_concat_dim(tmp_path, axis, concat_dim, expected_axis):
    a, b = uniform(2, 3, 4, 5), uniform(2, 3, 4, 5)
    net = pb.NetParameter()
    layer(net, "Concat", "cat", bottom=["a", "b"],
          concat_param=dict(axis=axis, concat_dim=concat_dim))
    y, = run(load(tmp_path, net), {"a": a, "b": b}, ["cat"])
    numpy.testing.assert_array_equal(y, numpy.concatenate([a, b], axis=expected_axis))


def test_eltwise_operations(tmp_path):
    a, b, c = uniform(2, 3), uniform(2, 3), uniform(2, 3)
    net = pb.NetParameter()
    layer(net, "Eltwise", "prod", bottom=["a", "b", "c"], eltwise_param=dict(operation=0))
    layer(net, "Eltwise", "sum", bottom=["a", "b", "c"])
    layer(net, "Eltwise", "weighted", bottom=["a", "b"], eltwise_param=dict(coeff=[2.0, -1.0]))
    layer(net, "Eltwise", "max", bottom=["a", "b", "c"], eltwise_param=dict(operation=2))
    prod, total, weighted, maximum = run(
        load(tmp_path, net), {"a": a, "b": b, "c": c}, ["prod", "sum", "weighted", "max"])
    numpy.testing.assert_allclose(prod, a * b * c, rtol=1e-6)
    numpy.testing.assert_allclose(total, a + b + c, rtol=1e-6)
    numpy.testing.assert_allclose(weighted, 2 * a - b, rtol=1e-6)
    numpy.testing.assert_array_equal(maximum, numpy.maximum(numpy.maximum(a, b), c))


def test_eltwise_coefficient_count_must_match(tmp_path):
    net = pb.NetParameter()
    layer(net, "Eltwise", "sum", bottom=["a", "b"], eltwise_param=dict(coeff=[1.0]))
    func = load(tmp_path, net)
    with pytest.raises(ValueError, match="one coeff per bottom blob, got 1 coeffs for 2"):
        run(func, {"a": uniform(2), "b": uniform(2)}, ["sum"])


@pytest.mark.parametrize("factor", [2.0, 0.0])
def test_batch_norm_uses_stored_statistics_and_scale_factor(tmp_path, factor):
    x = uniform(4, 3, 2, 2)
    mean, var = uniform(3), numpy.abs(uniform(3)) + 0.5
    net = pb.NetParameter()
    bn = layer(net, "BatchNorm", "bn", batch_norm_param=dict(use_global_stats=True, eps=1e-3))
    add_blob(bn, mean)
    add_blob(bn, var)
    add_blob(bn, [factor])
    func = load(tmp_path, net)
    scale = 0.0 if factor == 0 else 1 / factor
    expected = ((x - scale * mean[:, None, None]) /
                numpy.sqrt(scale * var[:, None, None] + 1e-3))
    # use_global_stats normalizes with the stored statistics even in training mode.
    with chainer.using_config("train", True):
        y, = func(inputs={"data": x}, outputs=["bn"])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(func.bn.avg_mean, scale * mean, rtol=1e-6)
    assert func.bn.eps == pytest.approx(1e-3)


def test_batch_norm_without_global_stats_uses_the_batch_in_training(tmp_path):
    x = uniform(8, 3)
    net = pb.NetParameter()
    bn = layer(net, "BatchNorm", "bn")
    add_blob(bn, numpy.zeros(3))
    add_blob(bn, numpy.ones(3))
    with chainer.using_config("train", True):
        y, = load(tmp_path, net)(inputs={"data": x}, outputs=["bn"])
    expected = (x - x.mean(axis=0)) / numpy.sqrt(x.var(axis=0) + 1e-5)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_scale_with_learned_and_with_bottom_scale(tmp_path):
    x, w, bias, s = uniform(2, 3, 4), uniform(3), uniform(3), uniform(3, 4)
    net = pb.NetParameter()
    learned = layer(net, "Scale", "learned", scale_param=dict(bias_term=True))
    add_blob(learned, w)
    add_blob(learned, bias)
    given = layer(net, "Scale", "given", bottom=["data", "s"],
                  scale_param=dict(axis=1, bias_term=True))
    add_blob(given, bias)
    layer(net, "Scale", "plain", bottom=["data", "s"])
    learned_y, given_y, plain_y = run(
        load(tmp_path, net), {"data": x, "s": s}, ["learned", "given", "plain"])
    numpy.testing.assert_allclose(learned_y, x * w[:, None] + bias[:, None], rtol=1e-6)
    numpy.testing.assert_allclose(given_y, x * s + bias[:, None], rtol=1e-6)
    numpy.testing.assert_allclose(plain_y, x * s, rtol=1e-6)


def test_split_layers_alias_their_bottom(tmp_path):
    x = uniform(2, 3)
    net = pb.NetParameter()
    layer(net, "Split", "split", top=["s1", "s2"])
    layer(net, "Split", "split2", bottom=["s2"], top=["s3"])
    layer(net, "ReLU", "relu", bottom=["s3"])
    layer(net, "Eltwise", "sum", bottom=["s1", "relu"])
    func = load(tmp_path, net)
    assert func.split_map == {"s1": "data", "s2": "data", "s3": "data"}
    y, = run(func, {"data": x}, ["sum"])
    numpy.testing.assert_allclose(y, x + numpy.maximum(x, 0), rtol=1e-6)


def test_slice_by_points_by_count_and_legacy_dim(tmp_path):
    x = uniform(2, 6, 4)
    net = pb.NetParameter()
    layer(net, "Slice", "points", top=["p1", "p2", "p3"], slice_param=dict(slice_point=[1, 4]))
    layer(net, "Slice", "count", top=["c1", "c2"], slice_param=dict(axis=2))
    layer(net, "Slice", "legacy", top=["l1", "l2"], slice_param=dict(slice_dim=2))
    p1, p2, p3, c1, c2, l1, l2 = run(
        load(tmp_path, net), {"data": x}, ["p1", "p2", "p3", "c1", "c2", "l1", "l2"])
    for got, expected in zip((p1, p2, p3), numpy.split(x, [1, 4], axis=1)):
        numpy.testing.assert_array_equal(got, expected)
    for got, expected in zip((c1, c2, l1, l2), numpy.split(x, 2, axis=2) * 2):
        numpy.testing.assert_array_equal(got, expected)


def test_reshape_with_inferred_and_copied_dims(tmp_path):
    x = uniform(2, 3, 4)
    net = pb.NetParameter()
    layer(net, "Reshape", "flat").reshape_param.shape.dim.extend([0, -1])
    y, = run(load(tmp_path, net), {"data": x}, ["flat"])
    numpy.testing.assert_array_equal(y, x.reshape(2, 12))


def test_data_layers_are_skipped_silently_and_unknown_layers_with_a_warning(tmp_path):
    net = pb.NetParameter()
    layer(net, "Data", "input", bottom=[], top=["data"])
    layer(net, "TanH", "tanh")
    layer(net, "ReLU", "relu")
    with pytest.warns(UserWarning) as record:
        func = load(tmp_path, net)
    messages = [str(warning.message) for warning in record]
    assert messages == ['Skip the layer "tanh", since CaffeFunction does not support TanH layer']
    assert [name for name, _, _ in func.layers] == ["relu"]


def test_layers_with_missing_bottoms_or_disabled_are_skipped(tmp_path):
    x = uniform(2, 3)
    net = pb.NetParameter()
    layer(net, "ReLU", "relu")
    layer(net, "Sigmoid", "orphan", bottom=["nowhere"])
    layer(net, "Sigmoid", "sigmoid", bottom=["relu"])
    func = load(tmp_path, net)
    relu, = run(func, {"data": x}, ["relu"], disable=["sigmoid"])
    numpy.testing.assert_array_equal(relu, numpy.maximum(x, 0))
    assert set(func.variables) == {"data", "relu"}
    with pytest.raises(KeyError):
        run(func, {"data": x}, ["sigmoid"], disable=["sigmoid"])


def test_v1_layers_are_read(tmp_path):
    x, w, b = uniform(2, 4), uniform(3, 4), uniform(3)
    net = pb.NetParameter()
    fc = net.layers.add(name="fc", type=pb.V1LayerParameter.INNER_PRODUCT, bottom=["data"],
                        top=["fc"])
    fc.inner_product_param.num_output = 3
    add_blob(fc, w, legacy=True)
    add_blob(fc, b, legacy=True)
    net.layers.add(name="relu", type=pb.V1LayerParameter.RELU, bottom=["fc"], top=["fc"])
    net.layers.add(name="sum", type=pb.V1LayerParameter.ELTWISE, bottom=["fc", "fc"],
                   top=["out"])
    net.layers.add(name="weird", type=pb.V1LayerParameter.NONE, bottom=["out"], top=["z"])
    with pytest.warns(UserWarning, match='Skip the layer "weird", since CaffeFunction does not '
                                         'support it'):
        func = load(tmp_path, net)
    y, = run(func, {"data": x}, ["out"])
    numpy.testing.assert_allclose(y, 2 * numpy.maximum(x @ w.T + b, 0), rtol=1e-5)


def test_outputs_backpropagate_to_the_parameters(tmp_path):
    net = pb.NetParameter()
    fc = layer(net, "InnerProduct", "fc", inner_product_param=dict(num_output=2))
    add_blob(fc, uniform(2, 3))
    add_blob(fc, uniform(2))
    func = load(tmp_path, net)
    func.cleargrads()
    y, = func(inputs={"data": uniform(4, 3)}, outputs=["fc"])
    chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(func.fc.b.grad, [4, 4])


def test_train_keyword_and_unknown_keywords_are_refused(tmp_path):
    func = load(tmp_path, pb.NetParameter())
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        func(inputs={}, outputs=[], train=True)
    with pytest.raises(TypeError):
        func(inputs={}, outputs=[], bogus=1)


def test_layer_names_with_slashes_become_children(tmp_path):
    net = pb.NetParameter()
    fc = layer(net, "InnerProduct", "inception_3a/1x1", inner_product_param=dict(num_output=2))
    add_blob(fc, uniform(2, 3))
    add_blob(fc, uniform(2))
    func = load(tmp_path, net)
    assert sorted(path for path, _ in func.namedparams()) == [
        "/inception_3a/1x1/W", "/inception_3a/1x1/b"]
    restored = pickle.loads(pickle.dumps(func))
    x = uniform(1, 3)
    numpy.testing.assert_array_equal(run(restored, {"data": x}, ["inception_3a/1x1"])[0],
                                     run(func, {"data": x}, ["inception_3a/1x1"])[0])


def test_missing_protobuf_raises_import_error_naming_the_extra(monkeypatch, tmp_path):
    for name in [name for name in sys.modules if name.startswith("google.protobuf")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "google.protobuf.text_format", None)
    # The uncached builder, so the classes other tests share stay as they are.
    monkeypatch.setattr(_proto, "load", _proto.load.__wrapped__)
    with pytest.raises(ImportError, match=r"pip install chainer_compat\[caffe\]"):
        CaffeFunction(str(tmp_path / "absent.caffemodel"))
    from chainer_compat.exporters import caffe

    with pytest.raises(ImportError, match=r"pip install protobuf"):
        caffe.export(chainer.functions.relu, [chainer.Variable(uniform(1))])


def test_importing_the_package_does_not_import_protobuf():
    code = ("import sys, chainer_compat, chainer_compat.links.caffe, chainer_compat.exporters; "
            "import chainer_compat.links.caffe.protobuf3.caffe_pb2; "
            "print(any(name.startswith('google.protobuf') for name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "False"


def test_runs_on_the_device_of_its_parameters(tmp_path, xp):
    x, w, b = uniform(1, 2, 4, 4), uniform(3, 2, 3, 3), uniform(3)
    net = pb.NetParameter()
    conv = layer(net, "Convolution", "conv", convolution_param=dict(num_output=3, kernel_size=[3]))
    add_blob(conv, w)
    add_blob(conv, b)
    layer(net, "Pooling", "pool", bottom=["conv"], pooling_param=dict(global_pooling=True))
    func = load(tmp_path, net)
    if xp is not numpy:
        func.to_gpu()
    y, = run(func, {"data": xp.asarray(x)}, ["pool"])
    assert isinstance(y, xp.ndarray)
    expected = numpy_conv(x, w, b, (1, 1), (0, 0)).max(axis=(2, 3), keepdims=True)
    numpy.testing.assert_allclose(chainer.backend.CpuDevice().send(y), expected, rtol=1e-5,
                                  atol=1e-6)


def test_caffe_pb2_offers_the_declared_messages_only():
    from chainer_compat.links.caffe.protobuf3 import caffe_pb2

    assert caffe_pb2.NetParameter is pb.NetParameter
    assert (caffe_pb2.TRAIN, caffe_pb2.TEST) == (0, 1)
    assert "LayerParameter" in dir(caffe_pb2)
    with pytest.raises(AttributeError, match="must name a Caffe message .* got 'SolverParameter'"):
        caffe_pb2.SolverParameter  # noqa: B018
