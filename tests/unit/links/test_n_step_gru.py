"""Tests for chainer_compat.links.rnn.n_step_gru: NStepGRU and NStepBiGRU against the n-step
functions on unsorted batches, zero state for None, the weight count and devices. Outputs
against a NumPy reference are pinned in tests/conformance/test_n_step_rnn_conformance.py.
"""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.transpose_sequence import transpose_sequence
from chainer_compat.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from chainer_compat.links.rnn.n_step_gru import NStepBiGRU, NStepGRU


@pytest.fixture(autouse=True)
def _seeded() -> None:
    numpy.random.seed(4)


def sequences(lengths, in_size=3, dtype=numpy.float32):
    return [numpy.random.uniform(-1, 1, (length, in_size)).astype(dtype) for length in lengths]


@pytest.mark.parametrize(("link_class", "function"),
                         [(NStepGRU, n_step_gru), (NStepBiGRU, n_step_bigru)])
def test_forward_equals_the_function_on_the_sorted_transposed_batch(link_class, function):
    link = link_class(2, 3, 4, 0.0, initial_bias=-0.3)
    xs = sequences([2, 2, 5])
    hx = numpy.random.uniform(-1, 1, (2 * link.direction, 3, 4)).astype(numpy.float32)
    hy, ys = link(Variable(hx), xs)
    order = [2, 0, 1]
    expected_hy, expected_ys = function(2, 0.0, hx[:, order], link.ws, link.bs,
                                        transpose_sequence([xs[i] for i in order]))
    numpy.testing.assert_allclose(hy.array[:, order], expected_hy.array, rtol=1e-6)
    by_sequence = transpose_sequence(list(expected_ys))
    for position, index in enumerate(order):
        numpy.testing.assert_allclose(ys[index].array, by_sequence[position].array, rtol=1e-6)


def test_none_hx_means_zeros():
    link = NStepGRU(2, 3, 2, 0.0)
    xs = sequences([1, 3])
    hy, ys = link(None, xs)
    zero_hy, zero_ys = link(numpy.zeros((2, 2, 2), numpy.float32), xs)
    numpy.testing.assert_array_equal(hy.array, zero_hy.array)
    for y, zero_y in zip(ys, zero_ys, strict=True):
        numpy.testing.assert_array_equal(y.array, zero_y.array)


def test_six_weights_per_layer_and_one_cell():
    link = NStepBiGRU(2, 3, 4, 0.0)
    assert link.n_weights == 6
    assert link.n_cells == 1
    assert [param.shape for param in link.ws[2]] == [(4, 8)] * 3 + [(4, 4)] * 3


def test_runs_on_the_links_device(xp):
    link = NStepBiGRU(2, 3, 4, 0.0)
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
