"""Tests for chainer_compat.links.rnn.n_step_lstm: NStepLSTM and NStepBiLSTM against the n-step
functions on unsorted batches, zero states for None, gradients and devices. Outputs against a
NumPy reference are pinned in tests/conformance/test_n_step_rnn_conformance.py.
"""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from chainer_compat.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(3)


def sequences(lengths, in_size=3, dtype=numpy.float32):
    return [numpy.random.uniform(-1, 1, (length, in_size)).astype(dtype) for length in lengths]


@pytest.mark.parametrize(("link_class", "function"),
                         [(NStepLSTM, n_step_lstm), (NStepBiLSTM, n_step_bilstm)])
def test_forward_equals_the_function_on_the_sorted_transposed_batch(link_class, function):
    link = link_class(2, 3, 4, 0.0, initial_bias=0.2)
    xs = sequences([1, 4, 2])
    shape = (2 * link.direction, 3, 4)
    hx = numpy.random.uniform(-1, 1, shape).astype(numpy.float32)
    cx = numpy.random.uniform(-1, 1, shape).astype(numpy.float32)
    hy, cy, ys = link(Variable(hx), Variable(cx), xs)
    order = [1, 2, 0]
    expected_hy, expected_cy, expected_ys = function(
        2, 0.0, hx[:, order], cx[:, order], link.ws, link.bs,
        transpose_sequence([xs[i] for i in order]))
    numpy.testing.assert_allclose(hy.array[:, order], expected_hy.array, rtol=1e-6)
    numpy.testing.assert_allclose(cy.array[:, order], expected_cy.array, rtol=1e-6)
    by_sequence = transpose_sequence(list(expected_ys))
    for position, index in enumerate(order):
        numpy.testing.assert_allclose(ys[index].array, by_sequence[position].array, rtol=1e-6)


def test_none_states_mean_zeros():
    link = NStepBiLSTM(1, 3, 2, 0.0)
    xs = sequences([2, 3])
    zeros = numpy.zeros((2, 2, 2), numpy.float32)
    hy, cy, ys = link(None, None, xs)
    zero_hy, zero_cy, zero_ys = link(zeros, zeros, xs)
    numpy.testing.assert_array_equal(hy.array, zero_hy.array)
    numpy.testing.assert_array_equal(cy.array, zero_cy.array)
    assert [y.shape for y in ys] == [(2, 4), (3, 4)]
    for y, zero_y in zip(ys, zero_ys, strict=True):
        numpy.testing.assert_array_equal(y.array, zero_y.array)


def test_eight_weights_per_layer_and_two_cells():
    link = NStepLSTM(2, 3, 4, 0.0)
    assert link.n_weights == 8
    assert link.n_cells == 2
    assert [param.shape for param in link.ws[1]] == [(4, 4)] * 8
    assert [param.shape for param in link.ws[0][:4]] == [(4, 3)] * 4


def test_gradients_reach_inputs_and_parameters_in_float64():
    link = NStepLSTM(1, 2, 2, 0.0)
    for param in link.params():
        param.array = numpy.random.uniform(-1, 1, param.shape)
    xs = sequences([1, 2], in_size=2, dtype=numpy.float64)

    def call(*inputs):
        hy, cy, ys = link(None, None, list(inputs))
        return (hy, cy, *ys)

    outputs = call(*xs)
    grads = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(call, tuple(xs), grads, params=tuple(link.params()),
                                  dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def test_runs_on_the_links_device(xp):
    link = NStepBiLSTM(2, 3, 4, 0.0)
    xs = sequences([3, 1, 2])
    expected_hy, expected_cy, _ = link(None, None, xs)
    if xp is not numpy:
        link.to_gpu()
    hy, cy, ys = link(None, None, [xp.asarray(x) for x in xs])
    assert type(cy.array) is type(xp.asarray(xs[0]))
    to_host = (lambda a: a.get()) if xp is not numpy else (lambda a: a)
    numpy.testing.assert_allclose(to_host(hy.array), expected_hy.array, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(to_host(cy.array), expected_cy.array, rtol=1e-5, atol=1e-6)
    assert [y.shape for y in ys] == [(3, 8), (1, 8), (2, 8)]
