"""linear_interpolate's gradient of y is ``gz - p gz``, rounded as Chainer's CPU code rounds it.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def test_linear_interpolate_gradients_round_as_chainers():
    rng = numpy.random.RandomState(0)
    p, x, y, gz = (rng.uniform(0, 1, (100,)).astype(numpy.float32) for _ in range(4))
    variables = [chainer.Variable(a) for a in (p, x, y)]
    z = F.linear_interpolate(*variables)
    z.grad = gz
    z.backward()
    numpy.testing.assert_array_equal(variables[0].grad, (x - y) * gz)
    numpy.testing.assert_array_equal(variables[1].grad, p * gz)
    numpy.testing.assert_array_equal(variables[2].grad, gz - p * gz)
