"""The n-step RNNs round as Chainer's CPU code does: outputs and every gradient equal, bit for
bit, a step-by-step composition of linear, lstm, split_axis, concat, stack and dropout in the
order Chainer's ``n_step_rnn_impl`` calls them (NOTE [n-step layout] in n_step_rnn.py).
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import subprocess

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
_lstm_functions = importlib.import_module(chainer.__name__ + ".functions.rnn.n_step_lstm")

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
CROSS_CHECK = REPOSITORY / "tests" / "data" / "n_step_rnn" / "cross_check.py"
CHAINER_PYTHON = pathlib.Path("/tmp/chvenv/bin/python")
N_WEIGHTS = {"lstm": 8, "gru": 6, "tanh": 2, "relu": 2}
LENGTHS = {"variable": (4, 3, 3, 1), "equal": (3, 3, 3)}
IN_SIZE, OUT_SIZE = 5, 4


def _stacked_gates(arrays):
    stacked = F.stack(arrays, axis=1)
    return F.reshape(stacked, (stacked.shape[0] * stacked.shape[1],) + stacked.shape[2:])


def _reference_step(kind, x, h, c, w, b):
    """One step as Chainer's CPU path computes it, weights regrouped at every step as there."""
    if kind == "lstm":
        gates = (F.linear(x, _stacked_gates([w[2], w[0], w[1], w[3]]),
                          _stacked_gates([b[2], b[0], b[1], b[3]]))
                 + F.linear(h, _stacked_gates([w[6], w[4], w[5], w[7]]),
                            _stacked_gates([b[6], b[4], b[5], b[7]])))
        c, h = F.lstm(c, gates)
        return h, c
    if kind == "gru":
        from_x = F.split_axis(F.linear(x, F.concat(w[:3], axis=0), F.concat(b[:3], axis=0)),
                              3, axis=1)
        from_h = F.split_axis(F.linear(h, F.concat(w[3:], axis=0), F.concat(b[3:], axis=0)),
                              3, axis=1)
        reset = F.sigmoid(from_x[0] + from_h[0])
        update = F.sigmoid(from_x[1] + from_h[1])
        candidate = F.tanh(from_x[2] + reset * from_h[2])
        return (1 - update) * candidate + update * h, None
    activation = F.tanh if kind == "tanh" else F.relu
    return activation(F.linear(x, w[0], b[0]) + F.linear(h, w[1], b[1])), None


def _reference(kind, n_layers, ratio, hx, cx, ws, bs, xs, directions):
    """The whole stack: layers, directions, per-step row splits and per-step dropout."""
    initial_h = F.separate(hx, axis=0)
    initial_c = None if cx is None else F.separate(cx, axis=0)
    final_h, final_c = [], []
    layer_input = list(xs)
    for layer in range(n_layers):
        per_direction = []
        for direction in range(directions):
            index = directions * layer + direction
            inputs = layer_input if layer == 0 else [F.dropout(x, ratio) for x in layer_input]
            times = range(len(inputs)) if direction == 0 else reversed(range(len(inputs)))
            h = initial_h[index]
            c = None if initial_c is None else initial_c[index]
            outputs = [None] * len(inputs)
            for time in times:
                rows = inputs[time].shape[0]
                waiting = h.shape[0] > rows
                if waiting:
                    h, h_rest = F.split_axis(h, [rows], axis=0)
                    if c is not None:
                        c, c_rest = F.split_axis(c, [rows], axis=0)
                h, c = _reference_step(kind, inputs[time], h, c, ws[index], bs[index])
                outputs[time] = h
                if waiting:
                    h = F.concat([h, h_rest], axis=0)
                    if c is not None:
                        c = F.concat([c, c_rest], axis=0)
            final_h.append(h)
            final_c.append(c)
            per_direction.append(outputs)
        layer_input = per_direction[0] if directions == 1 else [
            F.concat([forward, backward], axis=1) for forward, backward in zip(*per_direction)]
    return F.stack(final_h), None if cx is None else F.stack(final_c), layer_input


def _inputs(kind, directions, n_layers, lengths, dtype, seed):
    rng = numpy.random.RandomState(seed)

    def variable(*shape):
        return chainer.Variable(rng.uniform(-1, 1, shape).astype(dtype))

    hx = variable(n_layers * directions, len(lengths), OUT_SIZE)
    cx = variable(*hx.shape) if kind == "lstm" else None
    xs = [variable(sum(length > time for length in lengths), IN_SIZE)
          for time in range(max(lengths))]
    half = N_WEIGHTS[kind] // 2
    ws, bs = [], []
    for layer in range(n_layers):
        width = IN_SIZE if layer == 0 else OUT_SIZE * directions
        for _ in range(directions):
            ws.append([variable(OUT_SIZE, width if k < half else OUT_SIZE)
                       for k in range(N_WEIGHTS[kind])])
            bs.append([variable(OUT_SIZE) for _ in range(N_WEIGHTS[kind])])
    return hx, cx, xs, ws, bs


def _function(kind, directions):
    bi = directions == 2
    if kind == "lstm":
        return F.n_step_bilstm if bi else F.n_step_lstm
    if kind == "gru":
        return F.n_step_bigru if bi else F.n_step_gru
    function = F.n_step_birnn if bi else F.n_step_rnn
    return lambda *args: function(*args, activation=kind)


def _run(compute, kind, directions, n_layers, lengths, dtype, ratio, seed):
    """Outputs and gradients of one forward and backward, in a fixed order of names."""
    hx, cx, xs, ws, bs = _inputs(kind, directions, n_layers, lengths, dtype, seed)
    numpy.random.seed(seed)  # dropout draws its masks from the global generator
    hy, cy, ys = compute(hx, cx, xs, ws, bs)
    outputs = [hy] + ([] if cy is None else [cy]) + list(ys)
    rng = numpy.random.RandomState(seed + 1)
    chainer.backward(outputs, [chainer.Variable(rng.uniform(-1, 1, y.shape).astype(dtype))
                               for y in outputs])
    named = {f"output {index}": y.array for index, y in enumerate(outputs)}
    named.update({f"grad of xs[{time}]": x.grad for time, x in enumerate(xs)})
    named["grad of hx"] = hx.grad
    if cx is not None:
        named["grad of cx"] = cx.grad
    for group, (w, b) in enumerate(zip(ws, bs)):
        named.update({f"grad of ws[{group}][{k}]": param.grad for k, param in enumerate(w)})
        named.update({f"grad of bs[{group}][{k}]": param.grad for k, param in enumerate(b)})
    return named


def _assert_same_bits(actual, expected):
    assert list(actual) == list(expected)
    for name, value in actual.items():
        wanted = expected[name]
        assert value is not None and wanted is not None, name
        assert (value.dtype, value.shape) == (wanted.dtype, wanted.shape), name
        if value.tobytes() != wanted.tobytes():
            difference = numpy.abs(value.astype(numpy.float64) - wanted).max()
            pytest.fail(f"{name} differs from the composition by up to {difference:.3g}")


def _check(kind, directions, n_layers, lengths, dtype, ratio):
    function = _function(kind, directions)

    def ours(hx, cx, xs, ws, bs):
        if cx is None:
            hy, ys = function(n_layers, ratio, hx, ws, bs, xs)
            return hy, None, ys
        return function(n_layers, ratio, hx, cx, ws, bs, xs)

    def composition(hx, cx, xs, ws, bs):
        return _reference(kind, n_layers, ratio, hx, cx, ws, bs, xs, directions)

    seed = 7 * n_layers + len(lengths) + directions
    _assert_same_bits(_run(ours, kind, directions, n_layers, lengths, dtype, ratio, seed),
                      _run(composition, kind, directions, n_layers, lengths, dtype, ratio, seed))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("lengths", ["variable", "equal"])
@pytest.mark.parametrize("n_layers", [1, 2])
@pytest.mark.parametrize("directions", [1, 2])
@pytest.mark.parametrize("kind", ["lstm", "gru", "tanh", "relu"])
def test_outputs_and_gradients_are_the_step_by_step_composition(kind, directions, n_layers,
                                                                lengths, dtype):
    _check(kind, directions, n_layers, LENGTHS[lengths], dtype, 0.0)


@pytest.mark.parametrize("directions", [1, 2])
@pytest.mark.parametrize("kind", ["lstm", "gru", "tanh"])
def test_dropout_draws_a_mask_per_time_step_and_direction(kind, directions):
    # Same masks only if both draw from the generator in the same order and shapes.
    with chainer.using_config("train", True):
        _check(kind, directions, 2, LENGTHS["variable"], numpy.float32, 0.3)


def test_private_lstm_step_is_one_step_of_n_step_lstm():
    # chainerrl's tests use _lstm as the reference for a stateless recurrent link.
    hx, cx, xs, ws, bs = _inputs("lstm", 1, 1, (2, 2), numpy.float32, 3)
    h, c = _lstm_functions._lstm(xs[0], hx[0], cx[0], ws[0], bs[0])
    expected_h, expected_c = _reference_step("lstm", xs[0], hx[0], cx[0], ws[0], bs[0])
    assert h.array.tobytes() == expected_h.array.tobytes()
    assert c.array.tobytes() == expected_c.array.tobytes()


live = pytest.mark.skipif(
    chainer.__name__ != "chainer_compat" or not CHAINER_PYTHON.exists(),
    reason=f"needs the Chainer 7.8.1 interpreter at {CHAINER_PYTHON}, run from chainer_compat")


@live
def test_chainer_itself_is_the_composition():
    # The same file run on Chainer: proves the composition above is Chainer's arithmetic.
    env = {**os.environ, "CHAINER_CONFORMANCE_TARGET": "chainer", "PYTHONPATH": ""}
    done = subprocess.run(
        [str(CHAINER_PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(pathlib.Path(__file__).resolve())],
        cwd=REPOSITORY, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@live
def test_live_bits_equal_chainers_under_the_same_numpy():
    # Both libraries in Chainer's interpreter, so both use the same NumPy and BLAS: between
    # NumPy versions, some float32 products by one-row matrices round differently.
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    done = subprocess.run([str(CHAINER_PYTHON), str(CROSS_CHECK)], cwd=REPOSITORY, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["compared"] > 1000
    assert report["different"] == []
