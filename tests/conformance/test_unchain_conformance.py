"""unchain() on one output of a function with several outputs: that output becomes a root, so
its gradient stays on it and none flows back through it (truncated BPTT cuts the cell state
of F.lstm this way). Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("retain_grad", [False, True])
def test_a_cut_output_keeps_its_gradient_and_passes_none_back(retain_grad):
    x = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    first, second = F.split_axis(x, [2], axis=0)
    first.unchain()
    loss = F.sum(first * 3) + F.sum(second)
    loss.backward(retain_grad=retain_grad)
    numpy.testing.assert_array_equal(first.grad, numpy.full(2, 3, numpy.float32))
    numpy.testing.assert_array_equal(x.grad, numpy.array([0, 0, 1, 1], numpy.float32))


def test_cutting_the_lstm_cell_state_leaves_only_the_hidden_path():
    rng = numpy.random.RandomState(0)
    c_prev = chainer.Variable(rng.uniform(-1, 1, (2, 3)).astype(numpy.float32))
    x = chainer.Variable(rng.uniform(-1, 1, (2, 12)).astype(numpy.float32))
    c, h = F.lstm(c_prev, x)
    c.unchain()
    (F.sum(c * 2) + F.sum(h)).backward()
    numpy.testing.assert_array_equal(c.grad, numpy.full((2, 3), 2, numpy.float32))
    # The same gradients as a backward from h alone.
    c_alone, h_alone = F.lstm(chainer.Variable(c_prev.array), chainer.Variable(x.array))
    expected = chainer.grad([F.sum(h_alone)], [h_alone.creator.inputs[0].get_variable(),
                                               h_alone.creator.inputs[1].get_variable()])
    numpy.testing.assert_allclose(c_prev.grad, expected[0].array, rtol=1e-6)
    numpy.testing.assert_allclose(x.grad, expected[1].array, rtol=1e-6)
