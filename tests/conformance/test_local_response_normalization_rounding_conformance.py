"""local_response_normalization rounds as Chainer's CPU code does, so seeded runs print
Chainer's losses to the last bit: the window sum of squares adds the shifted channels one offset
at a time, and the gradient is gy * scale - ((2 alpha beta) x) * (the window sum of
y gy / unit_scale). Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _window_sum(values, half):
    total = values.copy()
    for offset in range(1, half + 1):
        total[:, offset:] += values[:, :-offset]
        total[:, :-offset] += values[:, offset:]
    return total


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("n, k, alpha, beta", [(5, 2, 1e-4, 0.75), (3, 1, 0.3, 0.6)])
def test_values_and_gradient_round_as_chainer(dtype, n, k, alpha, beta):
    rng = numpy.random.RandomState(0)
    x = (rng.standard_normal((8, 7, 6, 5)) * 2).astype(dtype)
    gy = rng.standard_normal(x.shape).astype(dtype)
    variable = chainer.Variable(x)
    y = F.local_response_normalization(variable, n, k, alpha, beta)
    y.grad = gy
    y.backward()

    unit_scale = k + alpha * _window_sum(numpy.square(x), n // 2)
    scale = unit_scale ** -beta
    expected_y = x * scale
    spread = _window_sum(expected_y * gy / unit_scale, n // 2)
    expected_gx = gy * scale - 2 * alpha * beta * x * spread
    numpy.testing.assert_array_equal(y.array, expected_y)
    numpy.testing.assert_array_equal(variable.grad, expected_gx)
