"""Chainer-visible behaviour of the n-step RNNs: F.n_step_lstm/bilstm/gru/bigru/rnn/birnn
(weight layout and gate order, interleaved directions, variable-length time-major batches,
dropout only in training, option errors) and the links NStepLSTM ... NStepBiRNNReLU (parameter
names and shapes, unsorted sequences, zero initial states). Outputs are compared with a NumPy
reference that runs each sequence on its own. Checked against Chainer 7.8.1; set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
_rnn_functions = importlib.import_module(chainer.__name__ + ".functions.rnn.n_step_rnn")
_lstm_functions = importlib.import_module(chainer.__name__ + ".functions.rnn.n_step_lstm")
_gru_functions = importlib.import_module(chainer.__name__ + ".functions.rnn.n_step_gru")
_rnn_links = importlib.import_module(chainer.__name__ + ".links.rnn.n_step_rnn")
_lstm_links = importlib.import_module(chainer.__name__ + ".links.rnn.n_step_lstm")
_gru_links = importlib.import_module(chainer.__name__ + ".links.rnn.n_step_gru")

N_WEIGHTS = {"lstm": 8, "gru": 6, "tanh": 2, "relu": 2}

# (kind, two-directional) -> the function and the link class.
FUNCTIONS = {
    ("lstm", False): _lstm_functions.n_step_lstm,
    ("lstm", True): _lstm_functions.n_step_bilstm,
    ("gru", False): _gru_functions.n_step_gru,
    ("gru", True): _gru_functions.n_step_bigru,
    ("tanh", False): _rnn_functions.n_step_rnn,
    ("tanh", True): _rnn_functions.n_step_birnn,
    ("relu", False): _rnn_functions.n_step_rnn,
    ("relu", True): _rnn_functions.n_step_birnn,
}
LINKS = {
    ("lstm", False): _lstm_links.NStepLSTM,
    ("lstm", True): _lstm_links.NStepBiLSTM,
    ("gru", False): _gru_links.NStepGRU,
    ("gru", True): _gru_links.NStepBiGRU,
    ("tanh", False): _rnn_links.NStepRNNTanh,
    ("tanh", True): _rnn_links.NStepBiRNNTanh,
    ("relu", False): _rnn_links.NStepRNNReLU,
    ("relu", True): _rnn_links.NStepBiRNNReLU,
}
CASES = list(FUNCTIONS)
CASE_IDS = [f"{kind}-{'bi' if bi else 'uni'}" for kind, bi in CASES]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _cell(kind, w, b, x, h, c):
    """One step of one sequence, written from the documented equations."""
    if kind == "lstm":
        pre = [w[j] @ x + b[j] + w[j + 4] @ h + b[j + 4] for j in range(4)]
        c = _sigmoid(pre[1]) * c + _sigmoid(pre[0]) * numpy.tanh(pre[2])
        return _sigmoid(pre[3]) * numpy.tanh(c), c
    if kind == "gru":
        r = _sigmoid(w[0] @ x + b[0] + w[3] @ h + b[3])
        z = _sigmoid(w[1] @ x + b[1] + w[4] @ h + b[4])
        n = numpy.tanh(w[2] @ x + b[2] + r * (w[5] @ h + b[5]))
        return (1 - z) * n + z * h, None
    pre = w[0] @ x + b[0] + w[1] @ h + b[1]
    return (numpy.tanh(pre) if kind == "tanh" else numpy.maximum(pre, 0)), None


def reference(kind, n_layers, directions, hx, cx, ws, bs, sequences):
    """Runs every sequence alone, layer by layer; returns ``(hy, cy, ys)`` with ``ys`` per
    sequence (batch-major)."""
    hy = hx.copy()
    cy = None if cx is None else cx.copy()
    ys = []
    for row, sequence in enumerate(sequences):
        inputs = list(sequence)
        for layer in range(n_layers):
            outputs = []
            for direction in range(directions):
                index = directions * layer + direction
                h = hx[index, row]
                c = None if cx is None else cx[index, row]
                times = range(len(inputs)) if direction == 0 else reversed(range(len(inputs)))
                steps = [None] * len(inputs)
                for t in times:
                    h, c = _cell(kind, ws[index], bs[index], inputs[t], h, c)
                    steps[t] = h
                hy[index, row] = h
                if cy is not None:
                    cy[index, row] = c
                outputs.append(steps)
            inputs = [numpy.concatenate([steps[t] for steps in outputs])
                      for t in range(len(inputs))]
        ys.append(numpy.stack(inputs))
    return hy, cy, ys


def make_weights(rng, kind, n_layers, directions, in_size, out_size, dtype=numpy.float32):
    count = N_WEIGHTS[kind]
    ws, bs = [], []
    for layer in range(n_layers):
        for _ in range(directions):
            width = in_size if layer == 0 else out_size * directions
            ws.append([(rng.uniform(-0.7, 0.7, (out_size, width if j < count // 2 else out_size)))
                       .astype(dtype) for j in range(count)])
            bs.append([rng.uniform(-0.5, 0.5, out_size).astype(dtype) for _ in range(count)])
    return ws, bs


def time_major(sequences):
    """Transposes sequences sorted longest first into per-time-step batches."""
    return [numpy.stack([s[t] for s in sequences if len(s) > t])
            for t in range(len(sequences[0]))]


def call_function(kind, bi, n_layers, ratio, hx, cx, ws, bs, xs):
    function = FUNCTIONS[(kind, bi)]
    hx = chainer.Variable(hx)
    xs = [chainer.Variable(x) for x in xs]
    if kind == "lstm":
        return function(n_layers, ratio, hx, chainer.Variable(cx), ws, bs, xs)
    if kind in ("tanh", "relu"):
        hy, ys = function(n_layers, ratio, hx, ws, bs, xs, activation=kind)
    else:
        hy, ys = function(n_layers, ratio, hx, ws, bs, xs)
    return hy, None, ys


def _setup(kind, bi, lengths, n_layers=2, in_size=3, out_size=4, seed=0):
    rng = numpy.random.RandomState(seed)
    directions = 2 if bi else 1
    ws, bs = make_weights(rng, kind, n_layers, directions, in_size, out_size)
    sequences = [rng.uniform(-1, 1, (length, in_size)).astype(numpy.float32)
                 for length in lengths]
    shape = (n_layers * directions, len(lengths), out_size)
    hx = rng.uniform(-1, 1, shape).astype(numpy.float32)
    cx = rng.uniform(-1, 1, shape).astype(numpy.float32) if kind == "lstm" else None
    return directions, ws, bs, sequences, hx, cx


@pytest.mark.parametrize(("kind", "bi"), CASES, ids=CASE_IDS)
def test_function_matches_per_sequence_reference_on_variable_lengths(kind, bi):
    lengths = [4, 3, 3, 1]
    directions, ws, bs, sequences, hx, cx = _setup(kind, bi, lengths)
    hy, cy, ys = call_function(kind, bi, 2, 0.0, hx, cx, ws, bs, time_major(sequences))
    expected_hy, expected_cy, expected_ys = reference(kind, 2, directions, hx, cx, ws, bs,
                                                      sequences)
    assert isinstance(ys, tuple)
    assert len(ys) == max(lengths)
    numpy.testing.assert_allclose(hy.array, expected_hy, rtol=1e-5, atol=1e-6)
    if kind == "lstm":
        numpy.testing.assert_allclose(cy.array, expected_cy, rtol=1e-5, atol=1e-6)
    for t, y in enumerate(ys):
        expected = numpy.stack([sequence[t] for sequence in expected_ys if len(sequence) > t])
        assert y.shape == (sum(length > t for length in lengths), 4 * directions)
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("kind", "bi"), [("lstm", True), ("gru", False), ("tanh", True)])
def test_dropout_is_ignored_outside_training(kind, bi):
    directions, ws, bs, sequences, hx, cx = _setup(kind, bi, [3, 2])
    with chainer.using_config("train", False):
        hy, _, ys = call_function(kind, bi, 2, 0.9, hx, cx, ws, bs, time_major(sequences))
    expected_hy, _, _ = reference(kind, 2, directions, hx, cx, ws, bs, sequences)
    numpy.testing.assert_allclose(hy.array, expected_hy, rtol=1e-5, atol=1e-6)


def test_dropout_changes_the_upper_layers_in_training():
    directions, ws, bs, sequences, hx, cx = _setup("tanh", False, [3, 2], in_size=4,
                                                   out_size=50)
    numpy.random.seed(1)
    with chainer.using_config("train", True):
        hy, _, _ = call_function("tanh", False, 2, 0.5, hx, cx, ws, bs, time_major(sequences))
    expected_hy, _, _ = reference("tanh", 2, directions, hx, cx, ws, bs, sequences)
    # The first layer reads undropped inputs; the second reads dropped hidden states.
    numpy.testing.assert_allclose(hy.array[0], expected_hy[0], rtol=1e-5, atol=1e-6)
    assert not numpy.allclose(hy.array[1], expected_hy[1], atol=1e-3)


@pytest.mark.parametrize("function", [_lstm_functions.n_step_lstm, _rnn_functions.n_step_rnn])
def test_input_size_mismatch_is_value_error(function):
    _, ws, bs, sequences, hx, cx = _setup("lstm" if function is _lstm_functions.n_step_lstm
                                          else "tanh", False, [2, 1], in_size=3)
    xs = [x[:, :2] for x in time_major(sequences)]
    args = (hx, cx) if function is _lstm_functions.n_step_lstm else (hx,)
    with pytest.raises(ValueError):
        function(2, 0.0, *args, ws, bs, xs)


def test_unknown_activation_is_value_error():
    _, ws, bs, sequences, hx, _ = _setup("tanh", False, [2])
    with pytest.raises(ValueError):
        _rnn_functions.n_step_rnn(2, 0.0, hx, ws, bs, time_major(sequences),
                                  activation="sigmoid")


def test_train_keyword_is_value_error():
    _, ws, bs, sequences, hx, cx = _setup("lstm", False, [2])
    with pytest.raises(ValueError):
        _lstm_functions.n_step_lstm(2, 0.0, hx, cx, ws, bs, time_major(sequences), train=True)


@pytest.mark.parametrize(("kind", "bi"), CASES, ids=CASE_IDS)
def test_link_parameters_are_w_and_b_per_layer_and_direction(kind, bi):
    n_layers, in_size, out_size = 2, 3, 5
    link = LINKS[(kind, bi)](n_layers, in_size, out_size, 0.0)
    directions = 2 if bi else 1
    count = N_WEIGHTS[kind]
    expected = {}
    for child in range(n_layers * directions):
        width = in_size if child < directions else out_size * directions
        for j in range(count):
            expected[f"/{child}/w{j}"] = (out_size, width if j < count // 2 else out_size)
            expected[f"/{child}/b{j}"] = (out_size,)
    assert {name: param.shape for name, param in link.namedparams()} == expected
    assert len(link) == n_layers * directions
    assert link.ws[1][count - 1] is getattr(link[1], f"w{count - 1}")
    assert link.bs[0][0] is link[0].b0
    assert link.n_cells == (2 if kind == "lstm" else 1)
    assert (link.n_layers, link.dropout, link.out_size, link.direction) == (
        n_layers, 0.0, out_size, directions)
    assert link.use_bi_direction is bi
    # Biases start at zero unless initial_bias is given.
    assert all((param.array == 0).all() for name, param in link.namedparams() if "/b" in name)


def test_link_initializers_fill_every_weight_and_bias():
    link = _gru_links.NStepBiGRU(2, 3, 4, 0.0, initialW=0.25, initial_bias=-1.5)
    for name, param in link.namedparams():
        assert (param.array == (0.25 if "/w" in name else -1.5)).all(), name


def _set_link_weights(link, ws, bs):
    for child, (weights, biases) in enumerate(zip(ws, bs)):
        for j, (w, b) in enumerate(zip(weights, biases)):
            getattr(link[child], f"w{j}").array[...] = w
            getattr(link[child], f"b{j}").array[...] = b


@pytest.mark.parametrize(("kind", "bi"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("given_state", [False, True], ids=["zero-state", "given-state"])
def test_link_runs_unsorted_sequences_against_reference(kind, bi, given_state):
    lengths = [2, 4, 1, 3]
    directions, ws, bs, sequences, hx, cx = _setup(kind, bi, lengths)
    link = LINKS[(kind, bi)](2, 3, 4, 0.0)
    _set_link_weights(link, ws, bs)
    if not given_state:
        hx = numpy.zeros_like(hx)
        cx = None if cx is None else numpy.zeros_like(cx)
    hx_arg = chainer.Variable(hx) if given_state else None
    xs = [chainer.Variable(s) for s in sequences]
    if kind == "lstm":
        hy, cy, ys = link(hx_arg, chainer.Variable(cx) if given_state else None, xs)
    else:
        hy, ys = link(hx_arg, xs)
    expected_hy, expected_cy, expected_ys = reference(kind, 2, directions, hx, cx, ws, bs,
                                                      sequences)
    numpy.testing.assert_allclose(hy.array, expected_hy, rtol=1e-5, atol=1e-6)
    if kind == "lstm":
        numpy.testing.assert_allclose(cy.array, expected_cy, rtol=1e-5, atol=1e-6)
    assert isinstance(ys, list)
    for y, expected in zip(ys, expected_ys, strict=True):
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)


def test_link_backward_reaches_every_parameter():
    _, ws, bs, sequences, _, _ = _setup("lstm", True, [3, 1, 2])
    link = _lstm_links.NStepBiLSTM(2, 3, 4, 0.0)
    _set_link_weights(link, ws, bs)
    link.cleargrads()
    hy, cy, ys = link(None, None, [chainer.Variable(s) for s in sequences])
    loss = chainer.functions.sum(hy * hy) + chainer.functions.sum(
        chainer.functions.concat(ys, axis=0))
    loss.backward()
    for name, param in link.namedparams():
        assert param.grad is not None and param.grad.shape == param.shape, name
        assert numpy.abs(param.grad).sum() > 0, name


@pytest.mark.parametrize("keyword", ["use_bi_direction", "activation", "use_cudnn"])
def test_link_removed_keywords_are_value_error(keyword):
    with pytest.raises(ValueError):
        _rnn_links.NStepRNNTanh(1, 3, 4, 0.0, **{keyword: True})


def test_link_sort_helpers():
    items = [[0] * 2, [0] * 4, [0] * 1, [0] * 3]
    order = _rnn_links.argsort_list_descent(items)
    assert order.dtype == numpy.int32
    assert [len(items[i]) for i in order] == [4, 3, 2, 1]
    shuffled = _rnn_links.permutate_list(items, order, inv=False)
    assert [len(x) for x in shuffled] == [4, 3, 2, 1]
    assert _rnn_links.permutate_list(shuffled, order, inv=True) == items


def test_sequences_of_equal_length_are_ordered_by_numpys_default_sort():
    # The order of ties decides which sequence each dropout mask row falls on.
    lengths = [9, 6, 5, 7, 6, 7, 3, 3, 7, 7, 3, 6, 7, 5, 5, 4]
    sequences = [numpy.zeros((n, 1), numpy.float32) for n in lengths]
    order = _rnn_links.argsort_list_descent(sequences)
    numpy.testing.assert_array_equal(order, numpy.argsort([-n for n in lengths]))


def test_ws_and_bs_are_lists_built_once_and_rebuilt_by_copy():
    links_module = importlib.import_module(chainer.__name__ + ".links")
    numpy.random.seed(0)
    rnn = links_module.NStepGRU(1, 3, 4, 0.0)
    assert rnn.ws is rnn.ws and rnn.bs is rnn.bs
    assert rnn.ws[0][0] is rnn[0].w0 and rnn.bs[0][2] is rnn[0].b2
    stand_in = chainer.Variable(numpy.zeros((4, 3), numpy.float32))
    rnn.ws[0][0] = stand_in  # code that overrides rnn() replaces entries (a masked weight)
    assert rnn.ws[0][0] is stand_in
    for mode in ("share", "copy", "init"):
        copied = rnn.copy(mode)
        assert copied.ws[0][0] is copied[0].w0 and copied.bs[0][0] is copied[0].b0
    rnn.ws = [[parameter for parameter in rnn.ws[0]]]
    assert rnn.ws[0][1] is rnn[0].w1
