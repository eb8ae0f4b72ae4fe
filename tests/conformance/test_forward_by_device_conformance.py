"""Chainer's own function classes that compute in forward_cpu/forward_gpu can be subclassed by
overriding forward_cpu (calling the parent's), and their forward_cpu can be called directly;
classes that compute in forward keep it. Set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
convolution_2d = importlib.import_module(
    chainer.__name__ + ".functions.connection.convolution_2d")
relu = importlib.import_module(chainer.__name__ + ".functions.activation.relu")
tanh = importlib.import_module(chainer.__name__ + ".functions.activation.tanh")
reshape = importlib.import_module(chainer.__name__ + ".functions.array.reshape")


class DoubledWeightConvolution(convolution_2d.Convolution2DFunction):
    """The weight-normalization pattern: transform an input, then the parent's forward_cpu."""

    def forward_cpu(self, inputs):
        x, w = inputs
        return super().forward_cpu((x, w * 2))


def test_subclass_forward_cpu_override_runs():
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((1, 2, 5, 5)).astype(numpy.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(numpy.float32)
    y, = DoubledWeightConvolution().apply((x, w))
    numpy.testing.assert_allclose(y.array, F.convolution_2d(x, w * 2).array, rtol=1e-6)


def test_subclass_override_keeps_the_parents_backward():
    x = chainer.Variable(numpy.array([-1.5, 0.5, 2.0], numpy.float32))

    class HalvedTanh(tanh.Tanh):
        def forward_cpu(self, inputs):
            y, = super().forward_cpu(inputs)
            return y * numpy.float32(0.5),

    y, = HalvedTanh().apply((x,))
    numpy.testing.assert_allclose(y.array, numpy.tanh(x.array) / 2, rtol=1e-6)
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    # Tanh's backward reads the retained output, which the override halved.
    numpy.testing.assert_allclose(x.grad, 1 - (numpy.tanh(x.array) / 2) ** 2, rtol=1e-6)


@pytest.mark.parametrize("function, expected", [
    (lambda: relu.ReLU(), [0.0, 0.0, 2.0]),
    (lambda: tanh.Tanh(), numpy.tanh([-1.0, 0.0, 2.0])),
])
def test_forward_cpu_can_be_called_directly(function, expected):
    outputs = function().forward_cpu((numpy.array([-1.0, 0.0, 2.0], numpy.float32),))
    assert isinstance(outputs, tuple) and len(outputs) == 1
    numpy.testing.assert_allclose(outputs[0], numpy.asarray(expected, numpy.float32), rtol=1e-6)


def test_class_that_computes_in_forward_ignores_a_forward_cpu_override():
    class Overridden(reshape.Reshape):
        def forward_cpu(self, inputs):
            raise AssertionError("not called: Reshape computes in forward")

    y, = Overridden((3, 2)).apply((numpy.arange(6, dtype=numpy.float32),))
    assert y.shape == (3, 2)
