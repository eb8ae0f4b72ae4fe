"""Chainer-visible behaviour of the remaining links and their functions: StatelessMGU,
StatefulMGU, StatefulZoneoutLSTM, F.tree_lstm, ChildSumTreeLSTM, NaryTreeLSTM, MLPConvolution2D,
Inception, InceptionBN, F.local_convolution_2d, LocalConvolution2D,
F.deformable_convolution_2d_sampler and DeformableConvolution2D (parameter names and shapes,
outputs against NumPy formulas on the links' own parameters, state handling, exception types).
Each case was checked against Chainer 7.8.1; set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
type_check = importlib.import_module(chainer.__name__ + ".utils.type_check")


def _module(path: str):
    return importlib.import_module(f"{chainer.__name__}.{path}")


StatelessMGU = _module("links.rnn.mgu").StatelessMGU
StatefulMGU = _module("links.rnn.mgu").StatefulMGU
StatefulZoneoutLSTM = _module("links.rnn.zoneoutlstm").StatefulZoneoutLSTM
tree_lstm = _module("functions.rnn.tree_lstm").tree_lstm
ChildSumTreeLSTM = _module("links.rnn.tree_lstm").ChildSumTreeLSTM
NaryTreeLSTM = _module("links.rnn.tree_lstm").NaryTreeLSTM
MLPConvolution2D = _module("links.connection.mlp_convolution_2d").MLPConvolution2D
Inception = _module("links.connection.inception").Inception
InceptionBN = _module("links.connection.inceptionbn").InceptionBN
local_convolution_2d = _module("functions.connection.local_convolution_2d").local_convolution_2d
LocalConvolution2D = _module("links.connection.local_convolution_2d").LocalConvolution2D
deformable_convolution_2d_sampler = _module(
    "functions.connection.deformable_convolution_2d_sampler").deformable_convolution_2d_sampler
DeformableConvolution2D = _module(
    "links.connection.deformable_convolution_2d").DeformableConvolution2D

TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(7)


def _uniform(*shape: int) -> numpy.ndarray:
    return numpy.random.uniform(-1, 1, shape).astype(numpy.float32)


def _sigmoid(x: numpy.ndarray) -> numpy.ndarray:
    return 1 / (1 + numpy.exp(-x))


def _param_shapes(link) -> dict[str, tuple[int, ...]]:
    return {name: param.shape for name, param in link.namedparams()}


def _affine(linear, x: numpy.ndarray) -> numpy.ndarray:
    y = x @ linear.W.array.T
    return y if linear.b is None else y + linear.b.array


def _conv(x: numpy.ndarray, W: numpy.ndarray, b: numpy.ndarray | None, stride: int = 1,
          pad: int = 0) -> numpy.ndarray:
    """Plain 2-D cross-correlation with zero padding, one window position at a time."""
    x = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = W.shape[2:]
    out_h = (x.shape[2] - kh) // stride + 1
    out_w = (x.shape[3] - kw) // stride + 1
    y = numpy.zeros((x.shape[0], W.shape[0], out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            window = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", window, W)
    return y if b is None else y + b[None, :, None, None]


# --- MGU ---


def test_mgu_parameters_are_two_linears_over_state_and_input() -> None:
    link = StatelessMGU(3, 4)
    assert _param_shapes(link) == {"/W_f/W": (4, 7), "/W_f/b": (4,),
                                   "/W_h/W": (4, 7), "/W_h/b": (4,)}


def _mgu_step(link, h: numpy.ndarray, x: numpy.ndarray) -> numpy.ndarray:
    f = _sigmoid(_affine(link.W_f, numpy.concatenate([h, x], axis=1)))
    h_bar = numpy.tanh(_affine(link.W_h, numpy.concatenate([f * h, x], axis=1)))
    return f * h_bar + (1 - f) * h


def test_stateless_mgu_step_matches_numpy() -> None:
    link = StatelessMGU(3, 4)
    h, x = _uniform(2, 4), _uniform(2, 3)
    numpy.testing.assert_allclose(link(h, x).array, _mgu_step(link, h, x), **TOLERANCE)


def test_stateful_mgu_starts_from_zeros_and_keeps_its_state() -> None:
    link = StatefulMGU(3, 4)
    x1, x2 = _uniform(2, 3), _uniform(2, 3)
    h1 = link(x1)
    expected1 = _mgu_step(link, numpy.zeros((2, 4), numpy.float32), x1)
    numpy.testing.assert_allclose(h1.array, expected1, **TOLERANCE)
    assert link.h is h1
    h2 = link(x2)
    numpy.testing.assert_allclose(h2.array, _mgu_step(link, expected1, x2), **TOLERANCE)
    link.reset_state()
    assert link.h is None
    numpy.testing.assert_allclose(link(x1).array, expected1, **TOLERANCE)


def test_stateful_mgu_set_state_takes_a_variable_only() -> None:
    link = StatefulMGU(3, 4)
    h = _uniform(2, 4)
    with pytest.raises(AssertionError):
        link.set_state(h)
    link.set_state(chainer.Variable(h))
    x = _uniform(2, 3)
    numpy.testing.assert_allclose(link(x).array, _mgu_step(link, h, x), **TOLERANCE)


# --- StatefulZoneoutLSTM ---


def _lstm_step(link, c: numpy.ndarray, h: numpy.ndarray | None,
               x: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
    z = _affine(link.upward, x)
    if h is not None:
        z = z + h @ link.lateral.W.array.T
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, gate] for gate in range(4))
    c_new = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
    return c_new, _sigmoid(o) * numpy.tanh(c_new)


def test_zoneout_lstm_parameters_and_initial_biases() -> None:
    link = StatefulZoneoutLSTM(3, 2)
    assert _param_shapes(link) == {"/upward/W": (8, 3), "/upward/b": (8,),
                                   "/lateral/W": (8, 2)}
    assert not link.upward.b.array.any()
    assert (link.c_ratio, link.h_ratio, link.state_size) == (0.5, 0.5, 2)


def test_zoneout_lstm_outside_training_is_a_plain_lstm() -> None:
    link = StatefulZoneoutLSTM(3, 2, c_ratio=0.7, h_ratio=0.3)
    x1, x2 = _uniform(4, 3), _uniform(4, 3)
    with chainer.using_config("train", False):
        y1 = link(x1)
        y2 = link(x2)
    c1, h1 = _lstm_step(link, numpy.zeros((4, 2), numpy.float32), None, x1)
    c2, h2 = _lstm_step(link, c1, h1, x2)
    numpy.testing.assert_allclose(y1.array, h1, **TOLERANCE)
    numpy.testing.assert_allclose(y2.array, h2, **TOLERANCE)
    numpy.testing.assert_allclose(link.c.array, c2, **TOLERANCE)


@pytest.mark.parametrize("ratio", [0.0, 1.0])
def test_zoneout_lstm_ratio_zero_takes_new_and_one_keeps_old(ratio: float) -> None:
    link = StatefulZoneoutLSTM(3, 2, c_ratio=ratio, h_ratio=ratio)
    c0, h0 = _uniform(4, 2), _uniform(4, 2)
    link.set_state(chainer.Variable(c0), chainer.Variable(h0))
    x = _uniform(4, 3)
    with chainer.using_config("train", True):
        y = link(x)
    c_new, h_new = _lstm_step(link, c0, h0, x)
    numpy.testing.assert_allclose(y.array, h_new if ratio == 0 else h0, **TOLERANCE)
    numpy.testing.assert_allclose(link.c.array, c_new if ratio == 0 else c0, **TOLERANCE)


def test_zoneout_lstm_refuses_train_argument_and_non_variable_state() -> None:
    with pytest.raises(ValueError):
        StatefulZoneoutLSTM(3, 2, train=True)
    link = StatefulZoneoutLSTM(3, 2)
    with pytest.raises(AssertionError):
        link.set_state(_uniform(1, 2), chainer.Variable(_uniform(1, 2)))
    link(_uniform(1, 3))
    link.reset_state()
    assert link.c is None and link.h is None


# --- tree_lstm ---


def _tree_step(cells: list[numpy.ndarray], x: numpy.ndarray) -> tuple[numpy.ndarray, ...]:
    blocks = numpy.split(x, 3 + len(cells), axis=1)
    a, i, o = blocks[:3]
    c = numpy.tanh(a) * _sigmoid(i)
    for f, cell in zip(blocks[3:], cells):
        c = c + _sigmoid(f) * cell
    return c, _sigmoid(o) * numpy.tanh(c)


@pytest.mark.parametrize("children", [1, 2, 3])
def test_tree_lstm_gates_are_contiguous_blocks(children: int) -> None:
    cells = [_uniform(3, 4) for _ in range(children)]
    x = _uniform(3, 4 * (3 + children))
    c, h = tree_lstm(*cells, x)
    expected_c, expected_h = _tree_step(cells, x)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)


def test_tree_lstm_refuses_a_wrong_input_width() -> None:
    with pytest.raises(type_check.InvalidType):
        tree_lstm(_uniform(3, 4), _uniform(3, 4 * 5))
    with pytest.raises(type_check.InvalidType):
        tree_lstm(_uniform(3, 4 * 4))


def test_tree_lstm_gradients_match_numpy_formula() -> None:
    cells = [_uniform(2, 3).astype(numpy.float64) for _ in range(2)]
    x = _uniform(2, 15).astype(numpy.float64)
    variables = [chainer.Variable(v) for v in cells + [x]]
    c, h = tree_lstm(*variables)
    gc, gh = _uniform(2, 3).astype(numpy.float64), _uniform(2, 3).astype(numpy.float64)
    grads = chainer.grad([c, h], variables, [chainer.Variable(gc), chainer.Variable(gh)])
    a, i, o, f1, f2 = numpy.split(x, 5, axis=1)
    c_ref, _ = _tree_step(cells, x)
    tanh_c = numpy.tanh(c_ref)
    through = gh * _sigmoid(o) * (1 - tanh_c ** 2) + gc
    expected_x = numpy.concatenate([
        through * _sigmoid(i) * (1 - numpy.tanh(a) ** 2),
        through * numpy.tanh(a) * _sigmoid(i) * (1 - _sigmoid(i)),
        gh * tanh_c * _sigmoid(o) * (1 - _sigmoid(o)),
        through * cells[0] * _sigmoid(f1) * (1 - _sigmoid(f1)),
        through * cells[1] * _sigmoid(f2) * (1 - _sigmoid(f2)),
    ], axis=1)
    numpy.testing.assert_allclose(grads[0].array, through * _sigmoid(f1), rtol=1e-10)
    numpy.testing.assert_allclose(grads[1].array, through * _sigmoid(f2), rtol=1e-10)
    numpy.testing.assert_allclose(grads[2].array, expected_x, rtol=1e-10)


# --- TreeLSTM links ---


def test_child_sum_tree_lstm_parameters() -> None:
    link = ChildSumTreeLSTM(3, 2)
    assert _param_shapes(link) == {"/W_x/W": (8, 3), "/W_x/b": (8,), "/W_h_aio/W": (6, 2),
                                   "/W_h_f/W": (2, 2)}
    assert (link.in_size, link.state_size) == (3, 2)


def _child_sum_step(link, cells, outputs, x):
    size = link.state_size
    wx = _affine(link.W_x, x)
    aio = wx[:, :3 * size] + sum(outputs) @ link.W_h_aio.W.array.T
    forgets = [wx[:, 3 * size:] + h @ link.W_h_f.W.array.T for h in outputs]
    return _tree_step(cells, numpy.concatenate([aio] + forgets, axis=1))


def test_child_sum_tree_lstm_sums_children_and_gives_each_a_forget_gate() -> None:
    link = ChildSumTreeLSTM(3, 2)
    cells, outputs, x = [_uniform(4, 2) for _ in range(2)], [_uniform(4, 2) for _ in range(2)], \
        _uniform(4, 3)
    c, h = link(*cells, *outputs, x)
    expected_c, expected_h = _child_sum_step(link, cells, outputs, x)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)


def test_child_sum_tree_lstm_leaf_and_missing_children() -> None:
    link = ChildSumTreeLSTM(3, 2)
    x = _uniform(4, 3)
    c, h = link(x)
    wx = _affine(link.W_x, x)
    a, i, o = numpy.split(wx[:, :6], 3, axis=1)
    expected_c = _sigmoid(i) * numpy.tanh(a)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, _sigmoid(o) * numpy.tanh(expected_c), **TOLERANCE)
    cell, output = _uniform(4, 2), _uniform(4, 2)
    c, h = link(cell, None, output, None, None)
    zeros = numpy.zeros((4, 2), numpy.float32)
    expected_c, expected_h = _child_sum_step(
        link, [cell, zeros], [output, zeros], numpy.zeros((4, 3), numpy.float32))
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)
    with pytest.raises(ValueError):
        link(None, None, None)


def test_nary_tree_lstm_parameters_and_step() -> None:
    link = NaryTreeLSTM(3, 2, n_ary=3)
    assert _param_shapes(link) == {
        "/W_x/W": (12, 3), "/W_x/b": (12,), "/W_h1/W": (12, 2), "/W_h2/W": (12, 2),
        "/W_h3/W": (12, 2)}
    cells = [_uniform(4, 2) for _ in range(3)]
    outputs = [_uniform(4, 2), None, _uniform(4, 2)]
    x = _uniform(4, 3)
    c, h = link(*cells, *outputs, x)
    z = _affine(link.W_x, x) + outputs[0] @ link.W_h1.W.array.T + outputs[2] @ link.W_h3.W.array.T
    expected_c, expected_h = _tree_step(cells, z)
    numpy.testing.assert_allclose(c.array, expected_c, **TOLERANCE)
    numpy.testing.assert_allclose(h.array, expected_h, **TOLERANCE)


def test_nary_tree_lstm_checks_arity_and_argument_count() -> None:
    assert NaryTreeLSTM(3, 2).n_ary == 2
    with pytest.raises(AssertionError):
        NaryTreeLSTM(3, 2, n_ary=0)
    link = NaryTreeLSTM(3, 2)
    with pytest.raises(AssertionError):
        link(_uniform(1, 2), _uniform(1, 2), _uniform(1, 3))
    with pytest.raises(ValueError):
        link(None, None, None, None, None)


# --- MLPConvolution2D, Inception, InceptionBN ---


def test_mlp_convolution_children_and_forward() -> None:
    link = MLPConvolution2D(2, (3, 4, 5), 3, stride=1, pad=1)
    assert _param_shapes(link) == {
        "/0/W": (3, 2, 3, 3), "/0/b": (3,), "/1/W": (4, 3, 1, 1), "/1/b": (4,),
        "/2/W": (5, 4, 1, 1), "/2/b": (5,)}
    x = _uniform(2, 2, 4, 5)
    h = numpy.maximum(_conv(x, link[0].W.array, link[0].b.array, pad=1), 0)
    h = numpy.maximum(_conv(h, link[1].W.array, link[1].b.array), 0)
    expected = _conv(h, link[2].W.array, link[2].b.array)
    numpy.testing.assert_allclose(link(x).array, expected, **TOLERANCE)


def test_mlp_convolution_two_arguments_infer_input_channels() -> None:
    link = MLPConvolution2D((3, 4), 1, conv_init=0.5, bias_init=0.25, activation=lambda h: -h)
    assert link[0].W.array is None
    x = _uniform(1, 2, 3, 3)
    y = link(x)
    assert y.shape == (1, 4, 3, 3)
    assert (link[1].W.array == 0.5).all() and (link[1].b.array == 0.25).all()
    hidden = -(0.5 * x.sum(axis=1, keepdims=True) + 0.25)
    expected = 0.5 * 3 * hidden + 0.25
    numpy.testing.assert_allclose(y.array, numpy.repeat(expected, 4, axis=1), **TOLERANCE)


def test_mlp_convolution_refuses_wscale_and_empty_channels() -> None:
    with pytest.raises(TypeError):
        MLPConvolution2D(2, (3,), 1, 1, 0, numpy.tanh, 1.0)
    with pytest.raises(ValueError):
        MLPConvolution2D(2, (3,), 1, wscale=1.0)
    with pytest.raises(AssertionError):
        MLPConvolution2D(2, (), 1)


def _max_pool_3x3(x: numpy.ndarray, stride: int) -> numpy.ndarray:
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-numpy.inf)
    out_h = (x.shape[2] - 1) // stride + 1
    out_w = (x.shape[3] - 1) // stride + 1
    y = numpy.empty(x.shape[:2] + (out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            y[:, :, i, j] = padded[:, :, i * stride:i * stride + 3,
                                   j * stride:j * stride + 3].max(axis=(2, 3))
    return y


def test_inception_parameters_and_forward() -> None:
    link = Inception(3, 2, 2, 3, 1, 2, 2)
    assert _param_shapes(link) == {
        "/conv1/W": (2, 3, 1, 1), "/conv1/b": (2,), "/proj3/W": (2, 3, 1, 1), "/proj3/b": (2,),
        "/conv3/W": (3, 2, 3, 3), "/conv3/b": (3,), "/proj5/W": (1, 3, 1, 1), "/proj5/b": (1,),
        "/conv5/W": (2, 1, 5, 5), "/conv5/b": (2,), "/projp/W": (2, 3, 1, 1), "/projp/b": (2,)}
    x = _uniform(2, 3, 5, 4)

    def conv(name: str, h: numpy.ndarray, pad: int = 0) -> numpy.ndarray:
        child = getattr(link, name)
        return _conv(h, child.W.array, child.b.array, pad=pad)

    out1 = conv("conv1", x)
    out3 = conv("conv3", numpy.maximum(conv("proj3", x), 0), pad=1)
    out5 = conv("conv5", numpy.maximum(conv("proj5", x), 0), pad=2)
    pool = conv("projp", _max_pool_3x3(x, 1))
    expected = numpy.maximum(numpy.concatenate([out1, out3, out5, pool], axis=1), 0)
    numpy.testing.assert_allclose(link(x).array, expected, **TOLERANCE)


def test_inception_bn_parameters_with_and_without_optional_paths() -> None:
    link = InceptionBN(3, 2, 2, 3, 2, 4, "max", proj_pool=2)
    names = set(_param_shapes(link))
    assert {"/conv1/W", "/conv1n/gamma", "/poolp/W", "/poolpn/beta", "/conv33b/W",
            "/conv33bn/gamma"} <= names
    assert not any(name.endswith("/b") for name in names)
    reduced = InceptionBN(3, 0, 2, 3, 2, 4, "avg", stride=2)
    assert not {"/conv1/W", "/poolp/W"} & set(_param_shapes(reduced))
    assert reduced(_uniform(2, 3, 5, 5)).shape == (2, 3 + 4 + 3, 3, 3)


def test_inception_bn_forward_outside_training_matches_numpy() -> None:
    link = InceptionBN(3, 2, 2, 3, 2, 4, "max", proj_pool=2)
    x = _uniform(2, 3, 4, 4)
    with chainer.using_config("train", False):
        y = link(x)
    scale = 1 / numpy.sqrt(1 + 2e-5)

    def unit(name: str, h: numpy.ndarray, stride: int = 1, pad: int = 0) -> numpy.ndarray:
        return numpy.maximum(_conv(h, getattr(link, name).W.array, None, stride, pad) * scale, 0)

    path1 = unit("conv1", x)
    path3 = unit("conv3", unit("proj3", x), pad=1)
    path33 = unit("conv33b", unit("conv33a", unit("proj33", x), pad=1), pad=1)
    pool = unit("poolp", _max_pool_3x3(x, 1))
    expected = numpy.concatenate([path1, path3, path33, pool], axis=1)
    numpy.testing.assert_allclose(y.array, expected, **TOLERANCE)


def test_inception_bn_refuses_unknown_pooling_and_strided_one_by_one_path() -> None:
    with pytest.raises(NotImplementedError):
        InceptionBN(3, 0, 2, 3, 2, 4, "sum")
    with pytest.raises(AssertionError):
        InceptionBN(3, 2, 2, 3, 2, 4, "max", proj_pool=2, stride=2)
    with pytest.raises(AssertionError):
        InceptionBN(3, 2, 2, 3, 2, 4, "max")
    assert InceptionBN(3, 0, 2, 3, 2, 4, "avg", dtype=numpy.float64).proj3n.gamma.dtype \
        == numpy.float64


# --- local convolution ---


def _local_conv(x, W, b, stride):
    out_c, out_h, out_w, _, kh, kw = W.shape
    y = numpy.zeros((x.shape[0], out_c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            window = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", window, W[:, i, j])
    return y if b is None else y + b[None]


@pytest.mark.parametrize("stride", [1, 2])
def test_local_convolution_2d_uses_one_filter_bank_per_position(stride: int) -> None:
    out = 3 if stride == 1 else 2
    x, W, b = _uniform(2, 3, 5, 5), _uniform(4, out, out, 3, 3, 3), _uniform(4, out, out)
    y = local_convolution_2d(x, W, b, stride=stride)
    numpy.testing.assert_allclose(y.array, _local_conv(x, W, b, stride), **TOLERANCE)
    y = local_convolution_2d(x, W, stride=stride)
    numpy.testing.assert_allclose(y.array, _local_conv(x, W, None, stride), **TOLERANCE)


def test_local_convolution_2d_checks_channels_and_bias_shape() -> None:
    with pytest.raises(type_check.InvalidType):
        local_convolution_2d(_uniform(1, 2, 4, 4), _uniform(2, 2, 2, 3, 3, 3))
    with pytest.raises(type_check.InvalidType):
        local_convolution_2d(_uniform(1, 3, 4, 4), _uniform(2, 2, 2, 3, 3, 3), _uniform(2))


def test_local_convolution_link_parameters_and_lazy_initialization() -> None:
    link = LocalConvolution2D(3, 2, in_size=(5, 4), ksize=(3, 2))
    assert _param_shapes(link) == {"/W": (2, 3, 3, 3, 3, 2), "/b": (2, 3, 3)}
    assert not link.b.array.any()
    x = _uniform(2, 3, 5, 4)
    expected = _local_conv(x, link.W.array, link.b.array, 1)
    numpy.testing.assert_allclose(link(x).array, expected, **TOLERANCE)
    lazy = LocalConvolution2D(None, 2, ksize=2, nobias=True)
    assert lazy.b is None and lazy.W.array is None
    assert lazy(x).shape == (2, 2, 4, 3)
    assert lazy.W.shape == (2, 4, 3, 3, 2, 2)


# --- deformable convolution ---


def _bilinear(image: numpy.ndarray, row: float, column: float) -> numpy.ndarray:
    """Samples ``image`` (c, h, w) at a real position, reading zeros outside."""
    top, left = int(numpy.floor(row)), int(numpy.floor(column))
    value = numpy.zeros(image.shape[0])
    for r in (top, top + 1):
        for q in (left, left + 1):
            if 0 <= r < image.shape[1] and 0 <= q < image.shape[2]:
                weight = (1 - abs(row - r)) * (1 - abs(column - q))
                value += weight * image[:, r, q]
    return value


def _deformable(x, offset, W, b, stride, pad):
    out_c, _, kh, kw = W.shape
    padded = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    _, _, out_h, out_w = offset.shape
    y = numpy.zeros((x.shape[0], out_c, out_h, out_w))
    for n in range(x.shape[0]):
        for i in range(out_h):
            for j in range(out_w):
                taps = numpy.zeros(W.shape[1:])
                for p in range(kh):
                    for q in range(kw):
                        k = p * kw + q
                        row = i * stride + p + offset[n, kh * kw + k, i, j]
                        column = j * stride + q + offset[n, k, i, j]
                        taps[:, p, q] = _bilinear(padded[n], row, column)
                y[n, :, i, j] = numpy.einsum("cpq,ocpq->o", taps, W)
    return y if b is None else y + b[None, :, None, None]


@pytest.mark.parametrize("stride, pad", [(1, 0), (2, 1)])
def test_deformable_convolution_samples_bilinearly_at_offsets(stride: int, pad: int) -> None:
    x, W, b = _uniform(2, 2, 5, 4), _uniform(3, 2, 2, 3), _uniform(3)
    out_h = (5 + 2 * pad - 2) // stride + 1
    out_w = (4 + 2 * pad - 3) // stride + 1
    offset = numpy.random.uniform(-1.5, 1.5, (2, 12, out_h, out_w)).astype(numpy.float32)
    y = deformable_convolution_2d_sampler(x, offset, W, b, stride=stride, pad=pad)
    numpy.testing.assert_allclose(
        y.array, _deformable(x, offset, W, b, stride, pad), **TOLERANCE)
    zero = numpy.zeros_like(offset)
    y = deformable_convolution_2d_sampler(x, zero, W, None, stride=stride, pad=pad)
    numpy.testing.assert_allclose(y.array, _conv(x, W, None, stride, pad), **TOLERANCE)


def test_deformable_convolution_refuses_offsets_of_another_kernel() -> None:
    with pytest.raises(ValueError):
        deformable_convolution_2d_sampler(
            _uniform(1, 2, 4, 4), _uniform(1, 8, 2, 2), _uniform(3, 2, 3, 3))


def test_deformable_convolution_link_parameters_and_forward() -> None:
    link = DeformableConvolution2D(2, 3, (2, 3), stride=1, pad=1)
    assert _param_shapes(link) == {
        "/offset_conv/W": (12, 2, 2, 3), "/offset_conv/b": (12,),
        "/deform_conv/W": (3, 2, 2, 3), "/deform_conv/b": (3,)}
    # compat: the deformed filters start at zero.
    assert not link.deform_conv.W.array.any()
    link.deform_conv.W.array[...] = _uniform(3, 2, 2, 3)
    x = _uniform(2, 2, 4, 4)
    offset = _conv(x, link.offset_conv.W.array, link.offset_conv.b.array, 1, 1)
    expected = _deformable(x, offset, link.deform_conv.W.array, link.deform_conv.b.array, 1, 1)
    numpy.testing.assert_allclose(link(x).array, expected, **TOLERANCE)
    lazy = DeformableConvolution2D(None, 3, 3, deform_nobias=True, offset_nobias=True)
    assert lazy.deform_conv.b is None and lazy.offset_conv.b is None
    assert lazy(x).shape == (2, 3, 2, 2)
    assert lazy.deform_conv.W.shape == (3, 2, 3, 3)


# --- saved names ---


def test_saved_names_include_batch_normalization_statistics(tmp_path) -> None:
    serializers = _module("serializers")
    path = tmp_path / "inception_bn.npz"
    serializers.save_npz(str(path), InceptionBN(3, 0, 2, 3, 2, 4, "avg", stride=2))
    names = set(numpy.load(path).files)
    for child in ("proj3n", "conv3n", "proj33n", "conv33an", "conv33bn"):
        assert {f"{child}/gamma", f"{child}/beta", f"{child}/avg_mean", f"{child}/avg_var",
                f"{child}/N"} <= names
    assert {"proj3/W", "conv3/W", "proj33/W", "conv33a/W", "conv33b/W"} <= names
    assert not any(name.startswith(("conv1", "poolp")) for name in names)


def test_saved_names_of_recurrent_and_tree_links(tmp_path) -> None:
    serializers = _module("serializers")
    expected = {
        StatefulMGU(2, 3): {"W_f/W", "W_f/b", "W_h/W", "W_h/b"},
        StatefulZoneoutLSTM(2, 3): {"upward/W", "upward/b", "lateral/W"},
        ChildSumTreeLSTM(2, 3): {"W_x/W", "W_x/b", "W_h_aio/W", "W_h_f/W"},
        MLPConvolution2D(2, (3, 4), 1): {"0/W", "0/b", "1/W", "1/b"},
    }
    for index, (link, names) in enumerate(expected.items()):
        path = tmp_path / f"link{index}.npz"
        serializers.save_npz(str(path), link)
        assert set(numpy.load(path).files) == names
