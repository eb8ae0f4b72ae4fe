"""Tests of n_step_gru / n_step_bigru: first- and second-order gradients in float64, the gate
order against a one-step NumPy formula, the unchecked input size and CuPy. Multi-step outputs
against a NumPy reference are pinned in tests/conformance/test_n_step_rnn_conformance.py.
"""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from chainer_compat.utils import type_check

N_WEIGHTS = 6


def make_inputs(xp, directions, n_layers=2, in_size=2, out_size=2, lengths=(2, 1),
                dtype=numpy.float64):
    """``hx``, time-major ``xs`` and the ``ws`` / ``bs`` lists, uniform in [-1, 1]."""
    def uniform(*shape):
        return xp.asarray(numpy.random.uniform(-1, 1, shape).astype(dtype))

    hx = uniform(n_layers * directions, len(lengths), out_size)
    xs = [uniform(sum(length > t for length in lengths), in_size)
          for t in range(max(lengths))]
    ws, bs = [], []
    for layer in range(n_layers):
        for _ in range(directions):
            width = in_size if layer == 0 else out_size * directions
            ws.append([uniform(out_size, width if j < N_WEIGHTS // 2 else out_size)
                       for j in range(N_WEIGHTS)])
            bs.append([uniform(out_size) for _ in range(N_WEIGHTS)])
    return hx, xs, ws, bs


def flat_function(function, n_layers, groups, x_count):
    """Wraps ``function`` to take ``(hx, *xs, *weights, *biases)`` and return ``(hy, *ys)``."""
    def call(hx, *rest):
        xs, params = list(rest[:x_count]), rest[x_count:]
        ws = [list(params[N_WEIGHTS * g:N_WEIGHTS * (g + 1)]) for g in range(groups)]
        biases = params[N_WEIGHTS * groups:]
        bs = [list(biases[N_WEIGHTS * g:N_WEIGHTS * (g + 1)]) for g in range(groups)]
        hy, ys = function(n_layers, 0.0, hx, ws, bs, xs)
        return (hy, *ys)
    return call


@pytest.mark.parametrize(("function", "directions"), [(n_step_gru, 1), (n_step_bigru, 2)])
def test_gradients_match_numerical_ones_in_float64(function, directions):
    hx, xs, ws, bs = make_inputs(numpy, directions)
    inputs = (hx, *xs, *[w for group in ws for w in group], *[b for group in bs for b in group])
    call = flat_function(function, 2, len(ws), len(xs))
    outputs = call(*inputs)
    output_grads = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(call, inputs, output_grads, dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
    input_grad_grads = tuple(numpy.random.uniform(-1, 1, x.shape) for x in inputs)
    gradient_check.check_double_backward(call, inputs, output_grads, input_grad_grads,
                                         dtype=numpy.float64, atol=1e-5, rtol=1e-4)


def test_one_step_uses_reset_update_candidate_order():
    hx, xs, ws, bs = make_inputs(numpy, 1, n_layers=1, lengths=(1, 1))
    hy, ys = n_step_gru(1, 0.0, hx, ws, bs, xs)
    w, b, x, h = ws[0], bs[0], xs[0], hx[0]

    def sigmoid(v):
        return 1 / (1 + numpy.exp(-v))
    reset = sigmoid(x @ w[0].T + b[0] + h @ w[3].T + b[3])
    update = sigmoid(x @ w[1].T + b[1] + h @ w[4].T + b[4])
    candidate = numpy.tanh(x @ w[2].T + b[2] + reset * (h @ w[5].T + b[5]))
    expected = (1 - update) * candidate + update * h
    numpy.testing.assert_allclose(hy.array[0], expected, rtol=1e-12)
    numpy.testing.assert_allclose(ys[0].array, expected, rtol=1e-12)


def test_input_size_mismatch_fails_in_linear_as_in_chainer():
    hx, xs, ws, bs = make_inputs(numpy, 1, in_size=3)
    with pytest.raises(type_check.InvalidType):
        n_step_gru(2, 0.0, hx, ws, bs, [x[:, :2] for x in xs])


def test_use_cudnn_keyword_is_value_error():
    hx, xs, ws, bs = make_inputs(numpy, 2)
    with pytest.raises(ValueError, match="use_cudnn"):
        n_step_bigru(2, 0.0, hx, ws, bs, xs, use_cudnn="always")


def test_runs_on_the_array_module_of_its_inputs(xp):
    hx, xs, ws, bs = make_inputs(numpy, 2, dtype=numpy.float32)
    expected_hy, _ = n_step_bigru(2, 0.0, hx, ws, bs, xs)
    hy, ys = n_step_bigru(2, 0.0, xp.asarray(hx), [[xp.asarray(w) for w in g] for g in ws],
                          [[xp.asarray(b) for b in g] for g in bs], [xp.asarray(x) for x in xs])
    assert type(hy.array) is type(xp.asarray(hx))
    numpy.testing.assert_allclose(chainer_compat.backend.CpuDevice().send(hy.array),
                                  expected_hy.array, rtol=1e-5, atol=1e-6)
    assert len(ys) == len(xs)
