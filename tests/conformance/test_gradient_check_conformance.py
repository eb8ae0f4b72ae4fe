"""Chainer-visible behaviour of ``chainer.gradient_check.numerical_grad`` on bad arguments: the
exception types code written against Chainer 7.8.1 catches. Set CHAINER_CONFORMANCE_TARGET=chainer
to run this file on Chainer itself.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
gradient_check = importlib.import_module(chainer.__name__ + ".gradient_check")


def _square_of(x: numpy.ndarray) -> Callable[[], tuple[numpy.ndarray]]:
    return lambda: (x * x,)


@pytest.mark.parametrize("eps", [0, -1.0])
def test_numerical_grad_rejects_a_non_positive_eps_with_assertion_error(eps: float) -> None:
    x = numpy.array([0.5, -0.25], numpy.float32)
    gy = numpy.ones_like(x)
    with pytest.raises(AssertionError):
        gradient_check.numerical_grad(_square_of(x), (x,), (gy,), eps=eps)


def test_numerical_grad_rejects_inputs_that_are_not_a_sequence_with_assertion_error() -> None:
    x = numpy.array([0.5, -0.25], numpy.float32)
    with pytest.raises(AssertionError):
        gradient_check.numerical_grad(_square_of(x), x, (numpy.ones_like(x),))


def test_numerical_grad_rejects_one_grad_output_too_few_with_assertion_error() -> None:
    x = numpy.array([0.5, -0.25], numpy.float32)
    gy = numpy.ones_like(x)
    with pytest.raises(AssertionError):
        gradient_check.numerical_grad(lambda: (x * x, x + x), (x,), (gy,))


def test_numerical_grad_with_a_valid_eps_matches_the_analytic_gradient() -> None:
    x = numpy.array([0.5, -0.25, 1.5], numpy.float64)
    gy = numpy.array([1.0, 2.0, -1.0], numpy.float64)
    (gx,) = gradient_check.numerical_grad(_square_of(x), (x,), (gy,), eps=1e-3)
    numpy.testing.assert_allclose(gx, 2 * x * gy, rtol=1e-6, atol=1e-8)
