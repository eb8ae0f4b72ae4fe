"""Chainer-visible behaviour of the basic links (Linear, Bias, Scale, EmbedID, Bilinear,
Highway, Parameter, LayerNormalization, PReLU, Maxout, Swish): parameter names, shapes and
dtypes, lazy initialization, default initial values, outputs against NumPy formulas on the
link's own parameters, saved names and the exception types. Each case was checked against
Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = chainer.functions
serializers = importlib.import_module(chainer.__name__ + ".serializers")
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")


def _link_class(module: str, name: str):
    return getattr(importlib.import_module(f"{chainer.__name__}.links.{module}"), name)


Linear = _link_class("connection.linear", "Linear")
Bias = _link_class("connection.bias", "Bias")
Scale = _link_class("connection.scale", "Scale")
EmbedID = _link_class("connection.embed_id", "EmbedID")
Bilinear = _link_class("connection.bilinear", "Bilinear")
Highway = _link_class("connection.highway", "Highway")
ParameterLink = _link_class("connection.parameter", "Parameter")
LayerNormalization = _link_class("normalization.layer_normalization", "LayerNormalization")
PReLU = _link_class("activation.prelu", "PReLU")
Maxout = _link_class("activation.maxout", "Maxout")
Swish = _link_class("activation.swish", "Swish")


def _shapes(link):
    return {name: (None if param.array is None else param.array.shape)
            for name, param in link.namedparams()}


def _rand(*shape):
    return numpy.random.uniform(-1, 1, shape).astype(numpy.float32)


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("make, expected", [
    (lambda: Linear(3, 2), {"/W": (2, 3), "/b": (2,)}),
    (lambda: Linear(3, 2, nobias=True), {"/W": (2, 3)}),
    (lambda: Linear(2), {"/W": None, "/b": (2,)}),
    (lambda: Bias(shape=(3,)), {"/b": (3,)}),
    (lambda: Bias(), {}),
    (lambda: Scale(W_shape=(3,), bias_term=True), {"/W": (3,), "/bias/b": (3,)}),
    (lambda: Scale(bias_term=True, bias_shape=(2,)), {"/bias/b": (2,)}),
    (lambda: EmbedID(5, 2), {"/W": (5, 2)}),
    (lambda: Bilinear(2, 3, 4), {"/W": (2, 3, 4), "/V1": (2, 4), "/V2": (3, 4), "/b": (4,)}),
    (lambda: Bilinear(2, 3, 4, nobias=True), {"/W": (2, 3, 4)}),
    (lambda: Highway(3), {"/plain/W": (3, 3), "/plain/b": (3,), "/transform/W": (3, 3),
                          "/transform/b": (3,)}),
    (lambda: ParameterLink(numpy.zeros((2, 3), numpy.float32)), {"/W": (2, 3)}),
    (lambda: LayerNormalization(), {"/gamma": None, "/beta": None}),
    (lambda: LayerNormalization(4), {"/gamma": (4,), "/beta": (4,)}),
    (lambda: PReLU(), {"/W": ()}),
    (lambda: Maxout(3, 2, 4), {"/linear/W": (8, 3), "/linear/b": (8,)}),
    (lambda: Maxout(3, 2, 4, initial_bias=None), {"/linear/W": (8, 3)}),
    (lambda: Swish(None), {"/beta": None}),
    (lambda: Swish((3,)), {"/beta": (3,)}),
])
def test_parameter_names_and_shapes(make, expected):
    assert _shapes(make()) == expected


def test_initialized_parameters_are_float32_and_follow_config_dtype():
    links = [Linear(3, 2), Bias(shape=(2,)), EmbedID(3, 2), Bilinear(2, 2, 2), PReLU(),
             LayerNormalization(2), Swish((2,)), Maxout(2, 2, 2), Scale(W_shape=(2,))]
    assert {param.array.dtype for link in links for param in link.params()} == {
        numpy.dtype(numpy.float32)}
    with chainer.using_config("dtype", numpy.float16):
        assert Linear(3, 2).W.array.dtype == numpy.float16
        assert EmbedID(3, 2).W.array.dtype == numpy.float16
        assert LayerNormalization(2).gamma.array.dtype == numpy.float16


def test_default_initial_values():
    numpy.random.seed(11)
    linear = Linear(4, 3)
    numpy.random.seed(11)
    expected = numpy.random.normal(0.0, numpy.sqrt(1.0 / 4), (3, 4)).astype(numpy.float32)
    numpy.testing.assert_allclose(linear.W.array, expected, rtol=1e-6)
    numpy.random.seed(12)
    embed = EmbedID(4, 3)
    numpy.random.seed(12)
    expected = numpy.random.normal(0.0, 1.0, (4, 3)).astype(numpy.float32)
    numpy.testing.assert_allclose(embed.W.array, expected, rtol=1e-6)
    assert (linear.b.array == 0).all() and (Bilinear(2, 2, 2).b.array == 0).all()
    assert (Scale(W_shape=(2,)).W.array == 1).all()
    assert (Highway(2).transform.b.array == -1).all() and (Highway(2).plain.b.array == 0).all()
    assert float(PReLU().W.array) == 0.25
    assert (Swish((2,)).beta.array == 1).all()
    layer_norm = LayerNormalization(3)
    assert (layer_norm.gamma.array == 1).all() and (layer_norm.beta.array == 0).all()
    assert layer_norm.eps == 1e-6


# ----------------------------------------------------------------------------- lazy initialization
def test_linear_lazy_init_uses_axes_after_n_batch_axes():
    x = _rand(2, 3, 4)
    link = Linear(5)
    assert link.W.array is None and link.in_size is None and link.out_size == 5
    assert link(x).shape == (2, 5) and link.W.shape == (5, 12)
    link = Linear(None, 5)
    assert link(x, n_batch_axes=2).shape == (2, 3, 5) and link.W.shape == (5, 4)
    assert link.in_size is None


def test_lazy_init_of_layer_normalization_swish_and_maxout():
    layer_norm = LayerNormalization()
    layer_norm(_rand(2, 6))
    assert layer_norm.gamma.shape == (6,) and layer_norm.beta.shape == (6,)
    swish = Swish(None)
    swish(_rand(2, 3, 4))
    assert swish.beta.shape == (3, 4)
    maxout = Maxout(None, 2, 3)
    assert maxout.linear.W.array is None
    assert maxout(_rand(4, 5)).shape == (4, 2) and maxout.linear.W.shape == (6, 5)


def test_npz_load_initializes_lazy_linear(tmp_path):
    source = Linear(3, 2)
    path = str(tmp_path / "linear.npz")
    serializers.save_npz(path, source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == ["W", "b"]
    target = Linear(2)
    serializers.load_npz(path, target)
    numpy.testing.assert_array_equal(target.W.array, source.W.array)


# ----------------------------------------------------------------------------- outputs
def test_linear_output_and_str():
    link = Linear(3, 2)
    x = _rand(4, 3)
    numpy.testing.assert_allclose(link(x).array, x @ link.W.array.T + link.b.array, rtol=1e-5)
    assert str(Linear(3, 2, nobias=True)) == "Linear(in_size=3, out_size=2, nobias=True)"
    assert str(Linear(2)) == "Linear(in_size=None, out_size=2, nobias=False)"


def test_bias_and_scale_outputs():
    x = _rand(2, 3, 4)
    y = _rand(3)
    numpy.testing.assert_allclose(Bias()(x, y).array, x + y[:, None], rtol=1e-6)
    scale = Scale(W_shape=(3,), bias_term=True)
    scale.W.array[...] = y
    scale.bias.b.array[...] = 2 * y
    numpy.testing.assert_allclose(scale(x).array, x * y[:, None] + 2 * y[:, None], rtol=1e-6)
    numpy.testing.assert_allclose(Scale(axis=2)(x, _rand(4) * 0 + 3).array, x * 3, rtol=1e-6)


def test_embed_id_output_with_ignore_label():
    link = EmbedID(4, 3, ignore_label=-1)
    y = link(numpy.array([2, -1, 0], numpy.int32)).array
    numpy.testing.assert_array_equal(y[0], link.W.array[2])
    numpy.testing.assert_array_equal(y[1], numpy.zeros(3))
    numpy.testing.assert_array_equal(y[2], link.W.array[0])


def test_bilinear_output():
    link = Bilinear(2, 3, 4, initial_bias=(None, None, 0.5))
    e1, e2 = _rand(5, 2), _rand(5, 3)
    expected = (numpy.einsum("ni,nj,ijk->nk", e1, e2, link.W.array) + e1 @ link.V1.array
                + e2 @ link.V2.array + link.b.array)
    numpy.testing.assert_allclose(link(e1, e2).array, expected, rtol=1e-5, atol=1e-6)


def test_highway_output():
    link = Highway(3)
    x = _rand(4, 3)
    plain = numpy.maximum(x @ link.plain.W.array.T + link.plain.b.array, 0)
    gate = 1 / (1 + numpy.exp(-(x @ link.transform.W.array.T + link.transform.b.array)))
    numpy.testing.assert_allclose(link(x).array, plain * gate + x * (1 - gate), rtol=1e-5,
                                  atol=1e-6)


def test_parameter_link_returns_w_and_backprops():
    array = numpy.arange(3, dtype=numpy.float32)
    link = ParameterLink(array)
    assert link.W.array is array
    link.cleargrads()
    out = link()
    numpy.testing.assert_array_equal(out.array, array)
    out.grad = numpy.ones(3, numpy.float32)
    out.backward()
    numpy.testing.assert_array_equal(link.W.grad, numpy.ones(3))


def test_layer_normalization_prelu_swish_maxout_outputs():
    x = _rand(3, 4)
    layer_norm = LayerNormalization(4)
    normalized = (x - x.mean(1, keepdims=True)) / numpy.sqrt(x.var(1, keepdims=True) + 1e-6)
    numpy.testing.assert_allclose(layer_norm(x).array, normalized, rtol=1e-4, atol=1e-5)
    prelu = PReLU((4,), init=0.1)
    numpy.testing.assert_allclose(prelu(x).array, numpy.where(x >= 0, x, 0.1 * x), rtol=1e-6)
    swish = Swish((4,), beta_init=2.0)
    numpy.testing.assert_allclose(swish(x).array, x / (1 + numpy.exp(-2 * x)), rtol=1e-5)
    maxout = Maxout(4, 2, 3, initialW=numpy.arange(24.0).reshape(2, 3, 4) / 24,
                    initial_bias=numpy.arange(6.0).reshape(2, 3))
    pre = x @ (numpy.arange(24.0).reshape(6, 4) / 24).T + numpy.arange(6.0)
    numpy.testing.assert_allclose(maxout(x).array, pre.reshape(3, 2, 3).max(2), rtol=1e-5)


# ----------------------------------------------------------------------------- exception types
@pytest.mark.parametrize("make", [
    lambda: Scale(bias_term=True),
    lambda: Bilinear(2, 3, 4, initial_bias=1),
    lambda: Maxout(3, 2, 4, initialW=numpy.ones((8, 3))),
    lambda: Maxout(3, 2, 4, initial_bias=numpy.ones(8)),
    lambda: Linear.from_params(numpy.ones((4, 3), numpy.float32), numpy.ones(3, numpy.float32)),
])
def test_bad_construction_raises_value_error(make):
    with pytest.raises(ValueError):
        make()


@pytest.mark.parametrize("call", [
    lambda x: Bias(shape=(3,))(x, x),
    lambda x: Bias()(x),
    lambda x: Scale(W_shape=(3,))(x, x),
    lambda x: Scale()(x),
])
def test_wrong_input_count_raises_value_error(call):
    with pytest.raises(ValueError):
        call(_rand(2, 3))


@pytest.mark.parametrize("call", [
    lambda: Linear(3, 2)(_rand(2, 5)),
    lambda: EmbedID(3, 2)(numpy.array([0.0, 1.0], numpy.float32)),
    lambda: PReLU((4,))(_rand(2, 3)),
    lambda: LayerNormalization()(_rand(2, 3, 4)),
])
def test_bad_inputs_raise_invalid_type(call):
    with pytest.raises(type_check.InvalidType):
        call()


def test_swish_requires_beta_shape():
    with pytest.raises(TypeError):
        Swish()
