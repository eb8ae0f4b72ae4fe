"""The gradients of ``**`` round as Chainer's CPU code does: ``x ** c`` takes ``c - 1`` in
Python's precision before the cast, ``c ** x`` takes ``log(c)`` likewise, and ``a ** b`` groups
its products as ``b a^(b-1) gy`` and ``log(a) a^b gy``. Set CHAINER_CONFORMANCE_TARGET=chainer to
run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import math
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))

F32 = numpy.float32


def _arrays(*shapes):
    rng = numpy.random.RandomState(3)
    return [rng.uniform(0.5, 2.0, shape).astype(F32) for shape in shapes]


@pytest.mark.parametrize("exponent", [1 / 3, 0.1, 2.7])
def test_power_of_a_constant(exponent):
    x, gy = _arrays((50,), (50,))
    variable = chainer.Variable(x)
    y = variable ** exponent
    y.grad = gy
    y.backward()
    expected = F32(exponent) * x ** F32(exponent - 1) * gy
    numpy.testing.assert_array_equal(variable.grad, expected)


@pytest.mark.parametrize("base", [math.e, 0.3, 10.0])
def test_constant_to_a_power(base):
    x, gy = _arrays((50,), (50,))
    variable = chainer.Variable(x)
    y = base ** variable
    y.grad = gy
    y.backward()
    expected = F32(math.log(base)) * y.array * gy
    numpy.testing.assert_array_equal(variable.grad, expected)


def test_power_of_two_variables():
    a, b, gy = _arrays((50,), (50,), (50,))
    va, vb = chainer.Variable(a), chainer.Variable(b)
    y = va ** vb
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(va.grad, b * a ** (b - F32(1)) * gy)
    numpy.testing.assert_array_equal(vb.grad, numpy.log(a) * (a ** b) * gy)
