"""Tests of n_step_lstm / n_step_bilstm: first- and second-order gradients in float64, the gate
order against a one-step NumPy formula, rows of ``hx`` / ``cx`` past the widest step, option
errors and CuPy. Multi-step outputs against a NumPy reference are pinned in
tests/conformance/test_n_step_rnn_conformance.py.
"""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm

N_WEIGHTS = 8


def make_inputs(xp, directions, n_layers=2, in_size=2, out_size=2, lengths=(2, 1),
                dtype=numpy.float64):
    """``hx``, ``cx``, time-major ``xs`` and the ``ws`` / ``bs`` lists, uniform in [-1, 1]."""
    def uniform(*shape):
        return xp.asarray(numpy.random.uniform(-1, 1, shape).astype(dtype))

    hx = uniform(n_layers * directions, len(lengths), out_size)
    cx = uniform(n_layers * directions, len(lengths), out_size)
    xs = [uniform(sum(length > t for length in lengths), in_size)
          for t in range(max(lengths))]
    ws, bs = [], []
    for layer in range(n_layers):
        for _ in range(directions):
            width = in_size if layer == 0 else out_size * directions
            ws.append([uniform(out_size, width if j < N_WEIGHTS // 2 else out_size)
                       for j in range(N_WEIGHTS)])
            bs.append([uniform(out_size) for _ in range(N_WEIGHTS)])
    return hx, cx, xs, ws, bs


def flat_function(function, n_layers, groups, x_count):
    """Wraps ``function`` to take ``(hx, cx, *xs, *weights, *biases)`` and return
    ``(hy, cy, *ys)``."""
    def call(hx, cx, *rest):
        xs, params = list(rest[:x_count]), rest[x_count:]
        ws = [list(params[N_WEIGHTS * g:N_WEIGHTS * (g + 1)]) for g in range(groups)]
        biases = params[N_WEIGHTS * groups:]
        bs = [list(biases[N_WEIGHTS * g:N_WEIGHTS * (g + 1)]) for g in range(groups)]
        hy, cy, ys = function(n_layers, 0.0, hx, cx, ws, bs, xs)
        return (hy, cy, *ys)
    return call


@pytest.mark.parametrize(("function", "directions"), [(n_step_lstm, 1), (n_step_bilstm, 2)])
def test_gradients_match_numerical_ones_in_float64(function, directions):
    hx, cx, xs, ws, bs = make_inputs(numpy, directions)
    inputs = (hx, cx, *xs, *[w for group in ws for w in group],
              *[b for group in bs for b in group])
    call = flat_function(function, 2, len(ws), len(xs))
    outputs = call(*inputs)
    output_grads = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(call, inputs, output_grads, dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
    input_grad_grads = tuple(numpy.random.uniform(-1, 1, x.shape) for x in inputs)
    gradient_check.check_double_backward(call, inputs, output_grads, input_grad_grads,
                                         dtype=numpy.float64, atol=1e-5, rtol=1e-4)


def test_one_step_uses_input_forget_candidate_output_order():
    hx, cx, xs, ws, bs = make_inputs(numpy, 1, n_layers=1, lengths=(1, 1))
    hy, cy, ys = n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
    w, b, x, h, c = ws[0], bs[0], xs[0], hx[0], cx[0]
    pre = [x @ w[j].T + b[j] + h @ w[j + 4].T + b[j + 4] for j in range(4)]

    def sigmoid(v):
        return 1 / (1 + numpy.exp(-v))
    expected_c = sigmoid(pre[1]) * c + sigmoid(pre[0]) * numpy.tanh(pre[2])
    expected_h = sigmoid(pre[3]) * numpy.tanh(expected_c)
    numpy.testing.assert_allclose(cy.array[0], expected_c, rtol=1e-12)
    numpy.testing.assert_allclose(hy.array[0], expected_h, rtol=1e-12)
    numpy.testing.assert_allclose(ys[0].array, expected_h, rtol=1e-12)


def test_rows_past_the_widest_step_keep_both_states():
    hx, cx, xs, ws, bs = make_inputs(numpy, 2, lengths=(2, 1, 1))
    hy, cy, _ = n_step_bilstm(2, 0.0, hx, cx, ws, bs, [x[:1] for x in xs])
    numpy.testing.assert_array_equal(hy.array[:, 1:], hx[:, 1:])
    numpy.testing.assert_array_equal(cy.array[:, 1:], cx[:, 1:])


def test_train_keyword_points_to_using_config():
    hx, cx, xs, ws, bs = make_inputs(numpy, 1)
    with pytest.raises(ValueError, match="using_config"):
        n_step_lstm(2, 0.0, hx, cx, ws, bs, xs, train=False)


def test_input_size_mismatch_is_value_error():
    hx, cx, xs, ws, bs = make_inputs(numpy, 2, in_size=3)
    with pytest.raises(ValueError, match="^Inconsistent input size in input values and weight "
                                         "parameters: 2 != 3"):
        n_step_bilstm(2, 0.0, hx, cx, ws, bs, [x[:, :2] for x in xs])


def test_runs_on_the_array_module_of_its_inputs(xp):
    hx, cx, xs, ws, bs = make_inputs(numpy, 2, dtype=numpy.float32)
    expected_hy, expected_cy, _ = n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs)
    hy, cy, ys = n_step_bilstm(2, 0.0, xp.asarray(hx), xp.asarray(cx),
                               [[xp.asarray(w) for w in g] for g in ws],
                               [[xp.asarray(b) for b in g] for g in bs],
                               [xp.asarray(x) for x in xs])
    to_host = chainer_compat.backend.CpuDevice().send
    assert type(cy.array) is type(xp.asarray(hx))
    numpy.testing.assert_allclose(to_host(hy.array), expected_hy.array, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(to_host(cy.array), expected_cy.array, rtol=1e-5, atol=1e-6)
    assert len(ys) == len(xs)
