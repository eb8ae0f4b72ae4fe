"""Tests of n_step_rnn / n_step_birnn: first- and second-order gradients in float64, rows of
``hx`` past the widest step, dropout, option errors and CuPy. Outputs against a NumPy
reference are pinned in tests/conformance/test_n_step_rnn_conformance.py.
"""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import gradient_check
from chainer_compat.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn

LENGTHS = [3, 2, 2]


def make_inputs(xp, directions, n_layers=2, in_size=2, out_size=3, lengths=LENGTHS,
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
            ws.append([uniform(out_size, width), uniform(out_size, out_size)])
            bs.append([uniform(out_size), uniform(out_size)])
    return hx, xs, ws, bs


def flat_function(function, n_layers, groups, x_count, activation):
    """Wraps ``function`` to take ``(hx, *xs, *weights, *biases)`` and return ``(hy, *ys)``."""
    def call(hx, *rest):
        xs, params = list(rest[:x_count]), rest[x_count:]
        ws = [list(params[2 * g:2 * g + 2]) for g in range(groups)]
        bs = [list(params[2 * groups + 2 * g:2 * groups + 2 * g + 2]) for g in range(groups)]
        hy, ys = function(n_layers, 0.0, hx, ws, bs, xs, activation=activation)
        return (hy, *ys)
    return call


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize(("function", "directions"), [(n_step_rnn, 1), (n_step_birnn, 2)])
def test_gradients_match_numerical_ones_in_float64(function, directions, activation):
    hx, xs, ws, bs = make_inputs(numpy, directions)
    inputs = (hx, *xs, *[w for group in ws for w in group], *[b for group in bs for b in group])
    call = flat_function(function, 2, len(ws), len(xs), activation)
    outputs = call(*inputs)
    output_grads = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(call, inputs, output_grads, dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
    input_grad_grads = tuple(numpy.random.uniform(-1, 1, x.shape) for x in inputs)
    gradient_check.check_double_backward(call, inputs, output_grads, input_grad_grads,
                                         dtype=numpy.float64, atol=1e-5, rtol=1e-4)


def test_rows_of_hx_past_the_widest_step_pass_through():
    hx, xs, ws, bs = make_inputs(numpy, 2, lengths=[2, 1, 1])
    hy, ys = n_step_birnn(2, 0.0, hx, ws, bs, [x[:1] for x in xs])
    numpy.testing.assert_array_equal(hy.array[:, 1:], hx[:, 1:])
    assert [y.shape for y in ys] == [(1, 6), (1, 6)]


def test_empty_sequence_list_returns_hx_and_no_outputs():
    hx, _, ws, bs = make_inputs(numpy, 1)
    hy, ys = n_step_rnn(2, 0.0, hx, ws, bs, [])
    numpy.testing.assert_array_equal(hy.array, hx)
    assert ys == ()


def test_zero_dropout_in_training_equals_inference():
    hx, xs, ws, bs = make_inputs(numpy, 2)
    with chainer_compat.using_config("train", True):
        hy_train, ys_train = n_step_birnn(2, 0.0, hx, ws, bs, xs)
    with chainer_compat.using_config("train", False):
        hy_test, ys_test = n_step_birnn(2, 0.7, hx, ws, bs, xs)
    numpy.testing.assert_allclose(hy_train.array, hy_test.array, rtol=1e-12)
    for y_train, y_test in zip(ys_train, ys_test, strict=True):
        numpy.testing.assert_allclose(y_train.array, y_test.array, rtol=1e-12)


def test_unknown_activation_message_names_the_choices():
    hx, xs, ws, bs = make_inputs(numpy, 1)
    with pytest.raises(ValueError,
                       match=r'^Invalid activation: "elu"\. Please select from \[tanh,relu\]'):
        n_step_rnn(2, 0.0, hx, ws, bs, xs, activation="elu")


def test_input_size_mismatch_message_names_both_sizes():
    hx, xs, ws, bs = make_inputs(numpy, 1, in_size=2)
    with pytest.raises(ValueError, match="^Inconsistent input size in input values and weight "
                                         "parameters: 1 != 2"):
        n_step_rnn(2, 0.0, hx, ws, bs, [x[:, :1] for x in xs])


@pytest.mark.parametrize(("keyword", "error"),
                         [("train", ValueError), ("use_cudnn", ValueError), ("foo", TypeError)])
def test_unexpected_keywords_are_refused(keyword, error):
    hx, xs, ws, bs = make_inputs(numpy, 1)
    with pytest.raises(error):
        n_step_rnn(2, 0.0, hx, ws, bs, xs, **{keyword: True})


def test_runs_on_the_array_module_of_its_inputs(xp):
    hx, xs, ws, bs = make_inputs(numpy, 2, dtype=numpy.float32)
    expected_hy, expected_ys = n_step_birnn(2, 0.0, hx, ws, bs, xs, activation="relu")
    device_args = [xp.asarray(hx), [[xp.asarray(w) for w in g] for g in ws],
                   [[xp.asarray(b) for b in g] for g in bs], [xp.asarray(x) for x in xs]]
    hy, ys = n_step_birnn(2, 0.0, device_args[0], *device_args[1:], activation="relu")
    assert type(hy.array) is type(device_args[0])
    numpy.testing.assert_allclose(chainer_compat.backend.CpuDevice().send(hy.array),
                                  expected_hy.array, rtol=1e-5, atol=1e-6)
    assert len(ys) == len(expected_ys)


@pytest.mark.parametrize("function, directions", [(n_step_rnn, 1), (n_step_birnn, 2)])
def test_extra_positional_array_is_a_value_error_naming_the_activation(function, directions):
    # It lands in `activation`; Chainer fails comparing it to 'tanh' with ValueError.
    hx, xs, ws, bs = make_inputs(numpy, directions)
    with pytest.raises(ValueError, match=r'^Invalid activation: "\[.*Please select from'):
        function(2, 0.0, hx, ws, bs, xs, numpy.ones(2, numpy.float32))


def _elman_tanh_step(x, h, c, w, b):
    import chainer_compat.functions as F

    return F.tanh(F.linear(x, w[0], b[0]) + F.linear(h, w[1], b[1])), c


@pytest.mark.parametrize(("function", "directions"), [(n_step_rnn, 1), (n_step_birnn, 2)])
def test_the_impl_with_an_elman_cell_is_n_step_rnn_to_the_bit(function, directions):
    from chainer_compat.functions.rnn.n_step_rnn import n_step_rnn_impl

    hx, xs, ws, bs = make_inputs(numpy, directions, dtype=numpy.float32)
    results = []
    def reference(h, x):
        hy, ys = function(2, 0.0, h, ws, bs, x)
        return hy, None, ys

    for run in (lambda h, x: n_step_rnn_impl(_elman_tanh_step, 2, 0.0, h, None, ws, bs, x,
                                             directions == 2), reference):
        h = chainer_compat.Variable(hx.copy())
        x = [chainer_compat.Variable(xt.copy()) for xt in xs]
        hy, cy, ys = run(h, x)
        assert cy is None and isinstance(ys, tuple) and len(ys) == len(xs)
        loss = chainer_compat.functions.sum(hy * hy) + sum(
            chainer_compat.functions.sum(y) for y in ys)
        loss.backward()
        results.append([hy.array, *[y.array for y in ys], h.grad, *[v.grad for v in x]])
    for ours, reference in zip(*results):
        numpy.testing.assert_array_equal(ours, reference)


def test_the_impl_passes_each_layer_its_weights_and_returns_the_cell_states():
    from chainer_compat.functions.rnn.n_step_rnn import n_step_rnn_impl

    hx, xs, ws, bs = make_inputs(numpy, 1, n_layers=2)
    cx = numpy.random.uniform(-1, 1, hx.shape)
    seen = []

    def step(x, h, c, w, b):
        seen.append((len(x), id(w), id(b)))
        return h + 1.0, c * 2.0  # the rows that run this step, shifted and scaled

    hy, cy, ys = n_step_rnn_impl(step, 2, 0.0, hx, cx, ws, bs, xs, False)
    # Layer 0 then layer 1, each over the steps of batch sizes 3, 3, 1, with its own weights.
    assert seen == [(3, id(ws[0]), id(bs[0])), (3, id(ws[0]), id(bs[0])),
                    (1, id(ws[0]), id(bs[0])), (3, id(ws[1]), id(bs[1])),
                    (3, id(ws[1]), id(bs[1])), (1, id(ws[1]), id(bs[1]))]
    # Row 0 runs three steps, rows 1 and 2 two; each layer starts from its own hx and cx.
    steps = numpy.array([3, 2, 2])[:, None]
    numpy.testing.assert_allclose(hy.array, hx + steps)
    numpy.testing.assert_allclose(cy.array, cx * 2.0 ** steps)
    numpy.testing.assert_allclose(ys[-1].array, (hx[1] + 3)[:1])
