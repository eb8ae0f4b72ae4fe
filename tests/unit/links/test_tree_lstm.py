"""Tests for chainer_compat.links.rnn.tree_lstm: ChildSumTreeLSTM and NaryTreeLSTM: steps
against NumPy formulas, absent children, gradients to parameters, errors and serialization."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check, serializers
from chainer_compat.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM


@pytest.fixture(autouse=True)
def _seeded():
    numpy.random.seed(13)


def _rand(*shape, dtype=numpy.float64):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _tree_step(cells, z):
    blocks = numpy.split(z, 3 + len(cells), axis=1)
    c = numpy.tanh(blocks[0]) * _sigmoid(blocks[1])
    for f, cell in zip(blocks[3:], cells):
        c = c + _sigmoid(f) * cell
    return c, _sigmoid(blocks[2]) * numpy.tanh(c)


def _float64(link):
    for param in link.params():
        param.array = param.array.astype(numpy.float64)
    return link


def test_child_sum_with_three_children_matches_numpy():
    link = _float64(ChildSumTreeLSTM(3, 2))
    cells, outputs, x = [_rand(4, 2) for _ in range(3)], [_rand(4, 2) for _ in range(3)], \
        _rand(4, 3)
    c, h = link(*cells, *outputs, x)
    wx = x @ link.W_x.W.array.T + link.W_x.b.array
    aio = wx[:, :6] + sum(outputs) @ link.W_h_aio.W.array.T
    forgets = [wx[:, 6:] + v @ link.W_h_f.W.array.T for v in outputs]
    expected_c, expected_h = _tree_step(cells, numpy.concatenate([aio] + forgets, axis=1))
    numpy.testing.assert_allclose(c.array, expected_c, rtol=1e-10)
    numpy.testing.assert_allclose(h.array, expected_h, rtol=1e-10)


def test_child_sum_missing_input_uses_zeros_of_the_children_dtype():
    link = ChildSumTreeLSTM(3, 2)
    cell = _rand(4, 2, dtype=numpy.float32)
    c, h = link(cell, None, None)
    assert c.shape == h.shape == (4, 2) and c.dtype == numpy.float32


def test_child_sum_gradients_reach_children_and_parameters():
    link = _float64(ChildSumTreeLSTM(3, 2))
    inputs = (_rand(2, 2), _rand(2, 2), _rand(2, 2), _rand(2, 2), _rand(2, 3))
    gradient_check.check_backward(link, inputs, (_rand(2, 2), _rand(2, 2)),
                                  params=tuple(link.params()), dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)


def test_child_sum_even_argument_count_is_an_error():
    link = ChildSumTreeLSTM(3, 2)
    with pytest.raises(ValueError, match="odd count"):
        link(_rand(1, 2), _rand(1, 3))


def test_nary_gradients_and_all_none():
    link = _float64(NaryTreeLSTM(3, 2, n_ary=2))
    inputs = (_rand(2, 2), _rand(2, 2), _rand(2, 2), _rand(2, 2), _rand(2, 3))
    gradient_check.check_backward(link, inputs, (_rand(2, 2), _rand(2, 2)),
                                  params=tuple(link.params()), dtype=numpy.float64,
                                  atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match=r"All inputs \(cs, hs, x\) are None"):
        link(None, None, None, None, None)


def test_nary_messages_name_the_rule():
    with pytest.raises(ValueError, match="n_ary must be at least 1, got 0"):
        NaryTreeLSTM(3, 2, n_ary=0)
    with pytest.raises(ValueError, match="n_ary = 2, got 3 arguments"):
        NaryTreeLSTM(3, 2)(_rand(1, 2), _rand(1, 2), _rand(1, 3))


def test_nary_npz_keys(tmp_path):
    path = tmp_path / "nary.npz"
    serializers.save_npz(str(path), NaryTreeLSTM(3, 2, n_ary=3))
    assert sorted(numpy.load(path).files) == ["W_h1/W", "W_h2/W", "W_h3/W", "W_x/W", "W_x/b"]
