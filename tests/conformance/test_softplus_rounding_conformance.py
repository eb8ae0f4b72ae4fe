"""softplus rounds as Chainer's CPU code does, so seeded runs print Chainer's losses to the
last bit: y = (max(beta x, 0) + log1p(exp(-|beta x|))) / beta, and the gradient is
(1 - 1 / (1 + exp(beta x))) gy, which is exactly 0 where 1 + exp(beta x) rounds to 1. A 0-d
input is computed in float64 (NumPy 1 multiplies a 0-d array by a Python float in float64).
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


def _softplus(t, beta):
    return (numpy.fmax(t, 0) + numpy.log1p(numpy.exp(-numpy.fabs(t)))) * t.dtype.type(1 / beta)


def _sigmoid(t):
    """Chainer's CPU formula for the derivative of softplus at t = beta x."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # exp overflows to inf: the result is 1
        return 1 - 1 / (1 + numpy.exp(t))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("beta", [1.0, 2.5])
@pytest.mark.parametrize("shape", [(16, 10), ()])
@pytest.mark.parametrize("double", [False, True])
def test_output_and_gradient_round_as_chainer(dtype, beta, shape, double):
    rng = numpy.random.RandomState(0)
    # Spread wide enough that the gradient rounds to 0 and to 1 in the tails.
    x = numpy.asarray(rng.standard_normal(shape) * 12).astype(dtype)
    gy = numpy.asarray(rng.standard_normal(shape)).astype(dtype)
    variable = chainer.Variable(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = F.softplus(variable, beta)
        y.grad = gy
        y.backward(enable_double_backprop=double)
    t = numpy.asarray(float(x) * beta) if x.ndim == 0 else x * dtype(beta)
    numpy.testing.assert_array_equal(y.array, _softplus(t, beta).astype(dtype))
    numpy.testing.assert_array_equal(variable.grad, (_sigmoid(t) * gy).astype(dtype))
