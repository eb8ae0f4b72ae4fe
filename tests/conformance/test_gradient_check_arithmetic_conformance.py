"""``check_backward`` draws Chainer's directions (unit length, every entry at least
0.1 / sqrt(size) in size) from the same draws, and ``numerical_grad`` rounds as Chainer's does,
so a check near its tolerance passes or fails on both alike. Set CHAINER_CONFORMANCE_TARGET=chainer
to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os

import numpy

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")


def _expected_direction(seed: int, size: int) -> numpy.ndarray:
    drawn = numpy.random.RandomState(seed).normal(size=(size,))
    share = drawn * drawn / (drawn * drawn).sum()
    return numpy.copysign(numpy.sqrt(0.99 * share + 0.01 / size), drawn)


def test_check_backward_moves_the_inputs_along_chainers_direction():
    seen = []

    def func(a, b):
        seen.append((a.array.copy(), b.array.copy()))
        return F.sum(a) + F.sum(b * 2.0)

    a = numpy.zeros(5, numpy.float64)
    b = numpy.zeros((2, 3), numpy.float64)
    numpy.random.seed(3)
    # eps = 1 and inputs at zero: the input at the second sample is the direction itself.
    gradient_check.check_backward(func, (a, b), None, eps=1.0, atol=1e-8,
                                  rtol=1e-8)
    direction = numpy.concatenate([seen[-1][0].ravel(), seen[-1][1].ravel()])
    expected = _expected_direction(3, 11)
    numpy.testing.assert_allclose(direction, expected, rtol=1e-14, atol=0)
    assert numpy.all(numpy.abs(direction) >= 0.1 / numpy.sqrt(11))


def test_numerical_grad_contracts_then_divides():
    rng = numpy.random.RandomState(0)
    x = rng.uniform(0.5, 2.0, 4)
    gy = rng.standard_normal(4)
    eps = 1e-3
    grad, = gradient_check.numerical_grad(lambda: (x ** 3,), (x,), (gy,), eps=eps)
    original = x.copy()
    expected = numpy.zeros(4)
    for i in range(4):
        below, above = original.copy(), original.copy()
        below[i] = original[i] + -eps
        above[i] = original[i] + eps
        expected[i] = 0.0 + ((above ** 3 - below ** 3) * gy).sum() / (2 * eps)
    numpy.testing.assert_array_equal(grad, expected)


def test_numerical_grad_five_point_stencil_order():
    rng = numpy.random.RandomState(1)
    x = rng.uniform(0.5, 2.0, 3)
    gy = rng.standard_normal(3)
    eps = 1e-2
    grad, = gradient_check.numerical_grad(lambda: (numpy.exp(x),), (x,), (gy,), eps=eps,
                                          detect_nondifferentiable=True)
    original = x.copy()
    expected = numpy.zeros(3)
    for i in range(3):
        def at(step):
            moved = original.copy()
            moved[i] = original[i] + step
            return numpy.exp(moved)
        difference = -at(eps) + 8 * at(eps * 0.5) - 8 * at(-eps * 0.5) + at(-eps)
        expected[i] = 0.0 + (difference * gy).sum() / (6 * eps)
    numpy.testing.assert_array_equal(grad, expected)
