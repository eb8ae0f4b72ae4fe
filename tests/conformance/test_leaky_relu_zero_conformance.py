"""Chainer-visible subgradient of ``leaky_relu`` at exactly zero: Chainer applies the slope
branch to ``x <= 0``, so an input of 0 (or -0.0) passes ``slope * gy`` back, not ``gy``.
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("slope", [0.2, 0.0, -0.5])
def test_gradient_at_zero_takes_the_slope_branch(slope: float, dtype: type) -> None:
    x_data: numpy.ndarray = numpy.array([-1.0, -0.0, 0.0, 2.0], dtype)
    x = chainer.Variable(x_data)
    y = F.leaky_relu(x, slope)
    gy: numpy.ndarray = numpy.array([1.0, 2.0, 3.0, 4.0], dtype)
    gx, = chainer.grad([y], [x], grad_outputs=[chainer.Variable(gy)],
                       enable_double_backprop=True)
    expected = numpy.where(x_data > 0, gy, gy * dtype(slope))
    numpy.testing.assert_array_equal(gx.array, expected)
    numpy.testing.assert_array_equal(y.array, numpy.where(x_data > 0, x_data,
                                                          x_data * dtype(slope)))
    # The gradient is linear in gy, so its own gradient with respect to gy uses the same branch.
    gy_variable = chainer.Variable(gy)
    gx, = chainer.grad([F.leaky_relu(x, slope)], [x], grad_outputs=[gy_variable],
                       enable_double_backprop=True)
    ggy, = chainer.grad([gx], [gy_variable],
                        grad_outputs=[chainer.Variable(numpy.ones_like(gy))])
    numpy.testing.assert_array_equal(ggy.array, numpy.where(x_data > 0, 1, dtype(slope)))
