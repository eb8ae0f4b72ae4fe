"""The order of the operands a backward multiplies, which FunctionHooks and PrintHook see."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat as chainer
import chainer_compat.functions as F


class _RecordsMultiplications(chainer.FunctionHook):
    name = "records_multiplications"

    def __init__(self) -> None:
        self.operands: list[list[numpy.ndarray]] = []

    def forward_preprocess(self, function, in_data):
        if function.label == "_ * _":
            self.operands.append([numpy.array(array) for array in in_data])


@pytest.mark.parametrize(("function", "derivative"), [
    (F.exp, numpy.exp),
    (F.sinh, numpy.cosh),
    (F.cosh, numpy.sinh),
    (F.expm1, numpy.exp),
])
def test_the_derivative_comes_first_and_the_output_gradient_second(function, derivative):
    # Chainer writes these backwards as derivative * gy, so its hooks see that order.
    x_array = numpy.array([0.25, 1.5])
    gy = numpy.array([2.0, -3.0])
    x = chainer.Variable(x_array)
    y = function(x)
    y.grad = gy
    hook = _RecordsMultiplications()
    with hook:
        y.backward()
    assert len(hook.operands) == 1
    first, second = hook.operands[0]
    numpy.testing.assert_allclose(first, derivative(x_array), rtol=1e-15)
    numpy.testing.assert_array_equal(second, gy)
    numpy.testing.assert_allclose(x.grad, derivative(x_array) * gy, rtol=1e-15)
