"""Tests for chainer_compat.functions.rnn.tree_lstm: values against a NumPy formula, gradients
of first and second order, trailing axes, missing output gradients, type errors and devices."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import LabelRecorder

import chainer_compat
from chainer_compat import Variable, gradient_check
from chainer_compat.functions.rnn.tree_lstm import tree_lstm
from chainer_compat.utils import type_check


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _reference(cells, x):
    blocks = numpy.split(x, 3 + len(cells), axis=1)
    c = numpy.tanh(blocks[0]) * _sigmoid(blocks[1])
    for f, cell in zip(blocks[3:], cells):
        c = c + _sigmoid(f) * cell
    return c, _sigmoid(blocks[2]) * numpy.tanh(c)


def _rand(*shape, dtype=numpy.float64):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _host(array):
    return array.get() if hasattr(array, "get") else array


def _inputs(children, trailing=()):
    cells = [_rand(2, 3, *trailing) for _ in range(children)]
    return cells, _rand(2, 3 * (3 + children), *trailing)


@pytest.mark.parametrize("children", [1, 2, 3])
def test_forward_matches_numpy_formula(xp, children):
    cells, x = _inputs(children)
    c, h = tree_lstm(*(xp.asarray(v) for v in cells), xp.asarray(x))
    expected_c, expected_h = _reference(cells, x)
    numpy.testing.assert_allclose(_host(c.array), expected_c, rtol=1e-12)
    numpy.testing.assert_allclose(_host(h.array), expected_h, rtol=1e-12)


def test_trailing_axes_are_elementwise():
    # Chainer's own type check rejects these inputs (it compares the wrong axes).
    cells, x = _inputs(2, trailing=(4,))
    c, h = tree_lstm(*cells, x)
    for position in range(4):
        expected_c, expected_h = _reference([v[..., position] for v in cells], x[..., position])
        numpy.testing.assert_allclose(c.array[..., position], expected_c, rtol=1e-12)
        numpy.testing.assert_allclose(h.array[..., position], expected_h, rtol=1e-12)


@pytest.mark.parametrize("children", [1, 2])
def test_gradients_of_first_and_second_order(children):
    cells, x = _inputs(children)
    output_grads = (_rand(2, 3), _rand(2, 3))
    gradient_check.check_backward(tree_lstm, (*cells, x), output_grads, dtype=numpy.float64,
                                  atol=1e-7, rtol=1e-6)
    grad_grads = tuple(_rand(*v.shape) for v in (*cells, x))
    gradient_check.check_double_backward(tree_lstm, (*cells, x), output_grads, grad_grads,
                                         dtype=numpy.float64, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("used", ["c", "h"])
def test_one_output_alone_carries_gradient(used):
    cells, x = _inputs(2)
    variables = [Variable(v) for v in (*cells, x)]
    c, h = tree_lstm(*variables)
    (c if used == "c" else h).grad = numpy.ones((2, 3))
    (c if used == "c" else h).backward()
    epsilon = 1e-6
    for variable, array in zip(variables, (*cells, x)):
        numeric = numpy.zeros_like(array)
        for index in numpy.ndindex(array.shape):
            shifted = [v.copy() for v in (*cells, x)]
            position = [a is array for a in (*cells, x)].index(True)
            shifted[position][index] += epsilon
            high = _reference(shifted[:-1], shifted[-1])[0 if used == "c" else 1].sum()
            shifted[position][index] -= 2 * epsilon
            low = _reference(shifted[:-1], shifted[-1])[0 if used == "c" else 1].sum()
            numeric[index] = (high - low) / (2 * epsilon)
        numpy.testing.assert_allclose(variable.grad, numeric, atol=1e-8)


@pytest.mark.parametrize("cells, x", [
    ([(2, 3)], (2, 15)),           # width is not (3 + N) times the cell's
    ([(2, 3)], (3, 12)),           # batch sizes differ
    ([(2, 3), (2, 3)], (2, 12)),   # two children need five blocks
])
def test_invalid_shapes_raise_invalid_type(cells, x):
    with pytest.raises(type_check.InvalidType):
        tree_lstm(*(_rand(*shape) for shape in cells), _rand(*x))


def test_mixed_dtypes_and_integer_cells_raise_invalid_type():
    with pytest.raises(type_check.InvalidType):
        tree_lstm(_rand(2, 3, dtype=numpy.float32), _rand(2, 12))
    with pytest.raises(type_check.InvalidType):
        tree_lstm(numpy.zeros((2, 3), numpy.int32), numpy.zeros((2, 12), numpy.int32))


def test_float32_keeps_its_dtype():
    cells, x = _inputs(1)
    c, h = tree_lstm(cells[0].astype(numpy.float32), x.astype(numpy.float32))
    assert c.dtype == h.dtype == numpy.float32


@pytest.mark.parametrize("children", [1, 2])
def test_backward_applies_no_function_as_chainers_old_style_function(children):
    # Chainer 7.8.1's TreeLSTM computes its gradients on arrays; ours do the same unless
    # double backprop records a graph (NOTE [old-style gradients]).
    rng = numpy.random.default_rng(30)
    arrays = [rng.standard_normal((3, 4)).astype(numpy.float32) for _ in range(children)]
    arrays.append(rng.standard_normal((3, 4 * (3 + children))).astype(numpy.float32))
    grads = [rng.standard_normal((3, 4)).astype(numpy.float32) for _ in range(2)]

    def run(record):
        inputs = [chainer_compat.Variable(a.copy()) for a in arrays]
        outputs = chainer_compat.functions.tree_lstm(*inputs)
        recorder = LabelRecorder()
        with recorder:
            results = chainer_compat.grad(list(outputs), inputs,
                                          [chainer_compat.Variable(g) for g in grads],
                                          enable_double_backprop=record)
        return results, recorder.labels

    plain, labels = run(False)
    assert labels == []
    recorded, _ = run(True)
    for gradient, through_functions in zip(plain, recorded):
        assert gradient.creator is None and through_functions.creator is not None
        numpy.testing.assert_allclose(through_functions.array, gradient.array, rtol=1e-5,
                                      atol=1e-6)
