"""Tests for chainer_compat.links.rnn.n_step_rnn: NStepRNNBase's bookkeeping (the ``ws`` / ``bs``
views after copies, saved names, sorting helpers, option errors, zero initial state on the
link's device) and the four Elman links against the n-step functions. Outputs against a NumPy
reference are pinned in tests/conformance/test_n_step_rnn_conformance.py.
"""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, gradient_check, serializers
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from chainer_compat.links.rnn.n_step_rnn import (
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepRNNReLU,
    NStepRNNTanh,
)

LINKS = [(NStepRNNTanh, n_step_rnn, "tanh"), (NStepRNNReLU, n_step_rnn, "relu"),
         (NStepBiRNNTanh, n_step_birnn, "tanh"), (NStepBiRNNReLU, n_step_birnn, "relu")]


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(2)


def sequences(lengths, in_size=3, dtype=numpy.float32):
    return [numpy.random.uniform(-1, 1, (length, in_size)).astype(dtype) for length in lengths]


@pytest.mark.parametrize(("link_class", "function", "activation"), LINKS)
def test_forward_equals_the_function_on_the_sorted_transposed_batch(link_class, function,
                                                                    activation):
    link = link_class(2, 3, 4, 0.0, initial_bias=0.1)
    xs = sequences([2, 5, 3])
    hx = numpy.random.uniform(-1, 1, (2 * link.direction, 3, 4)).astype(numpy.float32)
    hy, ys = link(Variable(hx), xs)
    order = [1, 2, 0]
    expected_hy, expected_ys = function(
        2, 0.0, hx[:, order], link.ws, link.bs, transpose_sequence([xs[i] for i in order]),
        activation=activation)
    numpy.testing.assert_allclose(hy.array[:, order], expected_hy.array, rtol=1e-6)
    by_sequence = transpose_sequence(list(expected_ys))
    for position, index in enumerate(order):
        numpy.testing.assert_allclose(ys[index].array, by_sequence[position].array, rtol=1e-6)


def test_none_hx_means_zeros_of_the_input_dtype():
    link = NStepBiRNNTanh(1, 3, 2, 0.0)
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    xs = sequences([3, 1], dtype=numpy.float64)
    hy, ys = link(None, xs)
    zero_hy, zero_ys = link(numpy.zeros((2, 2, 2)), xs)
    assert link.init_hx(xs).dtype == numpy.float64
    numpy.testing.assert_array_equal(hy.array, zero_hy.array)
    for y, zero_y in zip(ys, zero_ys, strict=True):
        numpy.testing.assert_array_equal(y.array, zero_y.array)


@pytest.mark.parametrize("mode", ["share", "copy", "init"])
def test_ws_and_bs_of_a_copy_are_the_copys_parameters(mode):
    link = NStepBiRNNTanh(2, 3, 4, 0.0)
    copied = link.copy(mode)
    assert copied.ws[3][1] is copied[3].w1
    assert copied.bs[2][0] is copied[2].b0
    assert copied.ws[3][1] is not link.ws[3][1]


def test_saved_names_are_child_index_then_w_or_b(tmp_path):
    link = NStepRNNReLU(2, 3, 4, 0.0)
    path = tmp_path / "rnn.npz"
    serializers.save_npz(str(path), link)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == sorted(
            f"{child}/{kind}{j}" for child in range(2) for kind in "wb" for j in range(2))
    restored = NStepRNNReLU(2, 3, 4, 0.0, initialW=0.0)
    serializers.load_npz(str(path), restored)
    numpy.testing.assert_array_equal(restored[1].w0.array, link[1].w0.array)


def test_gradients_reach_inputs_and_parameters_in_float64():
    link = NStepBiRNNTanh(1, 2, 2, 0.0)
    for param in link.params():
        param.array = numpy.random.uniform(-1, 1, param.shape)
    xs = sequences([2, 1], in_size=2, dtype=numpy.float64)

    def call(*inputs):
        hy, ys = link(None, list(inputs))
        return (hy, *ys)

    outputs = call(*xs)
    grads = tuple(numpy.random.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(call, tuple(xs), grads, params=tuple(link.params()),
                                  dtype=numpy.float64, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("keyword", ["use_cudnn", "use_bi_direction", "activation"])
def test_removed_constructor_keywords_are_value_error(keyword):
    with pytest.raises(ValueError, match="not supported anymore"):
        NStepRNNTanh(1, 3, 4, 0.0, **{keyword: False})


def test_unknown_constructor_keyword_is_type_error():
    with pytest.raises(TypeError):
        NStepRNNTanh(1, 3, 4, 0.0, peephole=True)


def test_train_keyword_in_forward_is_value_error():
    link = NStepRNNTanh(1, 3, 4, 0.0)
    with pytest.raises(ValueError, match="using_config"):
        link(None, sequences([2]), train=True)


def test_xs_must_be_a_list_or_tuple():
    link = NStepRNNTanh(1, 3, 4, 0.0)
    with pytest.raises(TypeError, match="xs must be a list or tuple"):
        link(None, numpy.zeros((2, 3, 3), numpy.float32))


def test_runs_on_the_links_device(xp):
    link = NStepBiRNNReLU(2, 3, 4, 0.0)
    xs = sequences([3, 1, 2])
    expected_hy, _ = link(None, xs)
    if xp is not numpy:
        link.to_gpu()
    hy, ys = link(None, [xp.asarray(x) for x in xs])
    assert type(hy.array) is type(xp.asarray(xs[0]))
    numpy.testing.assert_allclose(
        hy.array.get() if xp is not numpy else hy.array, expected_hy.array, rtol=1e-5,
        atol=1e-6)
    assert [y.shape for y in ys] == [(3, 8), (1, 8), (2, 8)]
