"""The nodes a backward applies for its gradients carry Chainer's names, so function hooks
(TimerHook, PrintHook, a profiler of one's own) report the same functions on both libraries.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_backward_applies_the_gradient_nodes_chainer_names(name):
    function, shapes, expected = CASES[name]
    inputs = _arrays(*shapes)
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
