"""Behaviours research code written for Chainer relies on (PFN's chainer-differentiable-mpc,
einconv and hyperbolic_wrapped_distribution): None as an optional input of a FunctionNode, axes
given as a range, ``from chainer.backend import cuda``, and Normal.log_prob's arithmetic. Set
CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import math
import os

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
D = importlib.import_module(chainer.__name__ + ".distributions")
backend = importlib.import_module(chainer.__name__ + ".backend")


class _OptionalShift(chainer.FunctionNode):
    def forward(self, inputs):
        x, shift = inputs
        return (x * 2 if shift is None else x * 2 + shift),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2, None


def test_none_is_an_optional_input_of_a_function_node():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y, = _OptionalShift().apply((x, None))
    numpy.testing.assert_array_equal(y.array, [2.0, 4.0])
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0])


def test_moveaxis_takes_axes_as_a_range_or_an_array():
    x = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    expected = numpy.moveaxis(x, [2, 0], [0, 1])
    numpy.testing.assert_array_equal(F.moveaxis(x, [2, 0], range(2)).array, expected)
    numpy.testing.assert_array_equal(
        F.moveaxis(x, numpy.array([2, 0]), numpy.array([0, 1])).array, expected)


def test_backend_module_holds_cuda_and_the_chainerx_converters():
    cuda = importlib.import_module(chainer.__name__ + ".backends.cuda")
    assert backend.cuda is cuda
    arrays = [numpy.ones(2), None]
    assert backend.from_chx(arrays)[0] is arrays[0]


def test_normal_log_prob_divides_the_squared_distance_by_the_variance():
    rng = numpy.random.RandomState(0)
    loc, scale, x = (rng.uniform(0.5, 2.0, (100,)).astype(numpy.float32) for _ in range(3))
    log_prob = D.Normal(loc, scale).log_prob(x).array
    constant = numpy.float32(-0.5 * math.log(2 * math.pi))
    expected = constant - numpy.log(scale) - numpy.float32(0.5) * (x - loc) ** 2 / scale ** 2
    numpy.testing.assert_array_equal(log_prob, expected)


def test_bernoulli_log_prob_and_its_gradient_round_as_chainers():
    rng = numpy.random.RandomState(1)
    logit = chainer.Variable(rng.uniform(-8, 8, (200,)).astype(numpy.float32))
    x = (rng.uniform(0, 1, (200,)) > 0.5).astype(numpy.float32)
    y = D.Bernoulli(logit=logit).log_prob(x)
    one = numpy.float32(1)
    expected = logit.array * (x - one) - numpy.log(numpy.exp(-logit.array) + one)
    numpy.testing.assert_array_equal(y.array, expected)
    y.grad = numpy.ones(200, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(logit.grad, x - 1.0 / (1.0 + numpy.exp(-logit.array)))
