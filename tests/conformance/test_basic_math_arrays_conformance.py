"""The functions of functions.math.basic_math (and F.add) take arrays as their first operand
too, as Chainer's do, and return Variables. Set CHAINER_CONFORMANCE_TARGET=chainer to run this
file on Chainer itself.
"""

from __future__ import annotations

import importlib
import operator
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
basic_math = importlib.import_module(chainer.__name__ + ".functions.math.basic_math")

A = numpy.arange(1, 5, dtype=numpy.float32)
B = numpy.full(4, 2, numpy.float32)


@pytest.mark.parametrize("name, expected", [
    ("add", A + B), ("sub", A - B), ("rsub", B - A), ("mul", A * B), ("div", A / B),
    ("rdiv", B / A), ("floordiv", A // B), ("pow", A ** B), ("rpow", B ** A)])
def test_binary_functions_take_an_array_first(name, expected):
    y = getattr(basic_math, name)(A, B)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_matmul_and_unary_functions_take_arrays():
    square = A.reshape(2, 2)
    numpy.testing.assert_array_equal(basic_math.matmul(square, square).array, square @ square)
    numpy.testing.assert_array_equal(basic_math.neg(A).array, -A)
    numpy.testing.assert_array_equal(basic_math.absolute(-A).array, A)


@pytest.mark.parametrize("operands", [(A, B), (A, B, A), (A, 2.0)])
def test_functions_add_takes_arrays(operands):
    y = F.add(*operands)
    assert isinstance(y, chainer.Variable) and not y.requires_grad
    expected = operands[0]
    for value in operands[1:]:
        expected = operator.add(expected, value)
    numpy.testing.assert_array_equal(y.array, expected)


def test_an_array_first_operand_still_passes_gradients_to_the_variable():
    x = chainer.Variable(B.copy())
    y = basic_math.sub(A, x)
    y.grad = numpy.ones(4, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, -numpy.ones(4, numpy.float32))
