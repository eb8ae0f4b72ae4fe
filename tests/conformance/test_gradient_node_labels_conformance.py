"""The nodes a backward applies for its gradients carry Chainer's names, so function hooks
(TimerHook, PrintHook, a profiler of one's own) report the same functions on both libraries.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


class _Applied(chainer.FunctionHook):
    name = "applied"

    def __init__(self):
        self.labels = []

    def forward_preprocess(self, function, in_data):
        self.labels.append(function.label)


def _arrays(*shapes):
    rng = numpy.random.RandomState(0)
    return [chainer.Variable(rng.standard_normal(shape).astype(numpy.float32))
            for shape in shapes]


CASES = {
    "relu": (lambda x: F.relu(x), [(3, 4)], ["ReLUGrad2"]),
    "sigmoid": (lambda x: F.sigmoid(x), [(3, 4)], ["SigmoidGrad"]),
    "tanh": (lambda x: F.tanh(x), [(3, 4)], ["TanhGrad"]),
    "log_softmax": (lambda x: F.log_softmax(x), [(3, 4)], ["LogSoftmaxGrad"]),
    "prelu": (lambda x, w: F.prelu(x, w), [(3, 4), (4,)], ["PReLUFunctionGrad"]),
    "linear": (lambda x, w, b: F.linear(x, w, b), [(3, 4), (5, 4), (5,)],
               ["LinearGradData", "LinearGradWeight", "Sum"]),
    "embed_id": (lambda w: F.embed_id(numpy.array([0, 2], numpy.int32), w), [(3, 4)],
                 ["EmbedIDGrad"]),
    "max_pooling_2d": (lambda x: F.max_pooling_2d(x, 2), [(1, 2, 4, 4)], ["MaxPoolingNDGrad"]),
    "absolute": (lambda x: abs(x), [(3, 4)], ["AbsoluteGrad"]),
    "linear_interpolate": (lambda p, x, y: F.linear_interpolate(F.sigmoid(p), x, y),
                           [(3, 4), (3, 4), (3, 4)], ["LinearInterpolateGrad", "SigmoidGrad"]),
    "mean": (lambda x: F.mean(x), [(3, 4)], ["_ * 0.08333333333333333", "BroadcastTo"]),
    "mean_over_an_axis": (lambda x: F.mean(x, axis=1), [(3, 4)],
                          ["_ * 0.25", "Reshape", "BroadcastTo"]),
    "divide": (lambda a, b: a / (abs(b) + 1), [(3, 4), (3, 4)],
               ["DivGrad", "AbsoluteGrad"]),
    "divide_from_constant": (lambda x: 2.0 / (abs(x) + 1), [(3, 4)],
                             ["DivFromConstantGrad", "AbsoluteGrad"]),
    "power_of_constant": (lambda x: abs(x) ** 1.5, [(3, 4)],
                          ["PowVarConstGrad", "AbsoluteGrad"]),
    "constant_to_power": (lambda x: 2.0 ** x, [(3, 4)], ["PowConstVarGrad"]),
    "power": (lambda a, b: (abs(a) + 1) ** b, [(3, 4), (3, 4)],
              ["PowVarVarGrad", "AbsoluteGrad"]),
    "local_response_normalization": (lambda x: F.local_response_normalization(x),
                                     [(2, 6, 2, 2)], ["LocalResponseNormalizationGrad"]),
    "batch_normalization": (lambda x, g, b: F.batch_normalization(x, g, b),
                            [(4, 3), (3,), (3,)], ["BatchNormalizationGrad"]),
    "softmax_cross_entropy": (
        lambda x: F.softmax_cross_entropy(x, numpy.array([0, 3, 1], numpy.int32)), [(3, 4)],
        ["_SoftmaxCrossEntropyGrad_NoDoubleBackprop"]),
    # The coefficient is a float32 scalar, so the node shows its float32 value.
    "mean_absolute_error": (lambda a, b: F.mean_absolute_error(a, b), [(3, 2, 2), (3, 2, 2)],
                            ["_ * 0.083333336", "BroadcastTo", "_ * _", "__neg__"]),
    "zoneout": (lambda h, x: F.zoneout(h, x, 0.5), [(3, 4), (3, 4)], ["_ * _", "_ * _"]),
    "batch_matmul": (lambda a, b: F.batch_matmul(a, b), [(2, 3, 4), (2, 4, 2)],
                     ["BatchMatMulGrad"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_backward_applies_the_gradient_nodes_chainer_names(name):
    function, shapes, expected = CASES[name]
    inputs = _arrays(*shapes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # batch_matmul's
        y = function(*inputs)
    y.grad = numpy.ones(y.shape, numpy.float32)
    hook = _Applied()
    with hook:
        y.backward()
    assert sorted(hook.labels) == sorted(expected)


def test_a_step_sums_the_gradients_of_an_input_taken_twice_in_one_multi_add():
    # x * x * x: Mul(x, x) hands x two gradients in one step, which join the one already there
    # in a MultiAdd (NOTE [one sum per step] in _engine.py). The second-order pass then walks
    # Chainer's graph, and its sums run in Chainer's order: the same bits.
    x = chainer.Variable(numpy.array([0.7, -1.3, 0.9], numpy.float32))
    gy = chainer.Variable(numpy.array([0.3, -0.8, 0.5], numpy.float32))
    hook = _Applied()
    with hook:
        y = x * x * x
        gx, = chainer.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
        assert hook.labels == ["_ * _"] * 6 + ["MultiAdd"]
        del hook.labels[:]
        g2, = chainer.grad([F.sum(gx * numpy.array([0.4, 0.9, -0.6], numpy.float32))], [x])
    assert hook.labels == (["_ * _", "Sum", "BroadcastTo"] + ["_ * _"] * 6
                           + ["_ + _", "_ + _", "_ * _", "_ * _", "MultiAdd", "_ * _", "_ + _"])
    # 3 x^2 gy and 6 x gy w, to float32 rounding.
    w = numpy.array([0.4, 0.9, -0.6], numpy.float32)
    numpy.testing.assert_allclose(gx.array, 3 * x.array ** 2 * gy.array, rtol=1e-6)
    numpy.testing.assert_allclose(g2.array, 6 * x.array * gy.array * w, rtol=1e-6)


def test_linear_interpolate_double_backward_applies_chainers_nodes_in_its_order():
    # p's gradient g (hx - hy) first, then x's g hp and y's -(g hp), then g's.
    rng = numpy.random.RandomState(0)
    p, x, y = [chainer.Variable(rng.uniform(0, 1, (2, 3)).astype(numpy.float32))
               for _ in range(3)]
    ones = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    grads = chainer.grad([F.linear_interpolate(p, x, y)], [p, x, y], grad_outputs=[ones],
                         enable_double_backprop=True)
    hook = _Applied()
    with hook:
        chainer.grad(list(grads), [p, x, y], grad_outputs=[
            chainer.Variable(numpy.full((2, 3), value, numpy.float32))
            for value in (0.5, 0.25, 2.0)])
    assert hook.labels == ["_ - _", "_ * _", "_ * _", "__neg__", "_ - _", "_ * _", "_ * _",
                           "_ + _", "1 - _", "_ * _", "_ + _"]


def _double_backward_labels(function, arrays, first_grads=None):
    """The labels of the nodes applied by the backward of the first-order gradients of
    ``function(*arrays)``, each gradient weighted by its own constant (``first_grads``
    picks which gradients take part; all by default)."""
    inputs = [chainer.Variable(array) if array.dtype.kind == "f" else array
              for array in arrays]
    variables = [v for v in inputs if isinstance(v, chainer.Variable)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        y = function(*inputs)
    gy = chainer.Variable(numpy.full(y.shape, 0.5, y.dtype))
    grads = chainer.grad([y], variables, grad_outputs=[gy], enable_double_backprop=True)
    chosen = range(len(grads)) if first_grads is None else first_grads
    hook = _Applied()
    with hook:
        chainer.grad([grads[i] for i in chosen], variables + [gy], grad_outputs=[
            chainer.Variable(numpy.full(grads[i].shape, 0.25 * (i + 1), grads[i].dtype))
            for i in chosen])
    return hook.labels


def test_divide_double_backward_subtracts_the_numerators_term_for_gy():
    # DivGrad's gradient for gy is ggx0 / x1 - ggx1 * x0 / x1**2: one ``_ - _``, no negation.
    rng = numpy.random.RandomState(0)
    x0, x1 = [rng.uniform(1, 2, (2, 3)).astype(numpy.float32) for _ in range(2)]
    assert _double_backward_labels(lambda a, b: a / b, [x0, x1]) == [
        "_ * _", "__neg__", "_ * _", "_ / _", "__neg__", "_ * _", "_ / _", "_ * 2", "_ * _",
        "_ * _", "_ * _", "_ / _", "_ + _", "_ / _", "_ * _", "_ / _", "_ - _"]
    # Without ggx0 the term is negated on its own.
    assert _double_backward_labels(lambda a, b: a / b, [x0, x1], first_grads=[1]) == [
        "_ * _", "__neg__", "_ * _", "_ / _", "_ * 2", "_ * _", "_ * _", "_ * _", "_ / _",
        "_ * _", "_ / _", "__neg__"]


def test_softmax_double_backward_sums_y_gy_before_the_products():
    x = numpy.random.RandomState(0).uniform(-2, 2, (2, 3)).astype(numpy.float32)
    assert _double_backward_labels(F.softmax, [x]) == [
        "_ * _", "Sum", "BroadcastTo", "_ - _", "_ * _", "Sum", "BroadcastTo", "_ * _",
        "_ * _", "_ - _", "_ * _", "_SoftmaxGrad"]


@pytest.mark.parametrize("ignore_label, expected", [
    (None, ["GetItem"]), (-1, ["GetItem", "Where"]), (1, ["GetItem", "Where"])])
def test_embed_id_double_backward_looks_rows_up_by_indexing(ignore_label, expected):
    w = numpy.random.RandomState(0).uniform(-2, 2, (5, 3)).astype(numpy.float32)
    ids = numpy.array([0, 1 if ignore_label is None else ignore_label, 2], numpy.int32)
    assert _double_backward_labels(
        lambda w, x: F.embed_id(x, w, ignore_label=ignore_label), [w, ids]) == expected


@pytest.mark.parametrize("ndim, batchwise, expected_first", [
    (2, True, ["BroadcastTo", "_ * 2.0", "_ * _"]),
    (3, True, ["Reshape", "BroadcastTo", "_ * 2.0", "_ * _"]),
    (2, False, ["_ * 2.0", "_ * _", "BroadcastTo"]),
])
def test_simplified_dropconnect_backward_applies_chainers_nodes_in_its_order(
        ndim, batchwise, expected_first):
    x_shape = (3, 4) if ndim == 2 else (3, 2, 2)
    x, w, b = _arrays(x_shape, (2, 4), (2,))
    y = F.simplified_dropconnect(x, w, b, ratio=0.5, use_batchwise_mask=batchwise)
    y.grad = numpy.ones(y.shape, numpy.float32)
    hook = _Applied()
    with hook:
        y.backward()
    assert hook.labels == expected_first + [
        "GetItem", "MatMul", "Reshape", "GetItem", "GetItem", "BroadcastTo", "BroadcastTo",
        "_ * _", "_ * _", "Sum", "_ * 2.0", "Sum"]


def test_batch_matmul_double_backward_applies_one_grad_node_and_two_products():
    rng = numpy.random.RandomState(0)
    a = rng.uniform(-2, 2, (2, 3, 4)).astype(numpy.float32)
    b = rng.uniform(-2, 2, (2, 4, 2)).astype(numpy.float32)
    assert _double_backward_labels(F.batch_matmul, [a, b]) == [
        "BatchMatMulGrad", "BatchMatMul", "BatchMatMul", "_ + _"]
