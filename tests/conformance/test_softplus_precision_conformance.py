"""Chainer-visible precision of ``softplus``'s second derivative in float32 where ``beta * x``
is far from zero (the curvature is tiny there, and a cancelling formula loses all its digits).
Set CHAINER_CONFORMANCE_TARGET=chainer to run this file on Chainer 7.8.1 itself.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

chainer = importlib.import_module(os.environ.get("CHAINER_CONFORMANCE_TARGET", "chainer_compat"))
F = importlib.import_module(chainer.__name__ + ".functions")


def _curvature_reference(x: numpy.ndarray, beta: float) -> numpy.ndarray:
    """d2/dx2 of softplus(x, beta) in float64: beta * e / (1 + e) ** 2 with e = exp(-|beta x|)."""
    e = numpy.exp(-numpy.abs(beta * x.astype(numpy.float64)))
    return beta * e / (1.0 + e) ** 2


@pytest.mark.parametrize("beta", [1.0, 3.0])
def test_float32_double_backward_keeps_relative_precision_in_the_tails(beta: float) -> None:
    # |beta * x| from 5 to 30: the curvature falls from ~7e-3 to ~1e-13 of beta.
    magnitudes = numpy.linspace(5.0, 30.0, 26) / beta
    x_data = numpy.concatenate([magnitudes, -magnitudes]).astype(numpy.float32)
    x = chainer.Variable(x_data)
    y = F.softplus(x, beta)
    gx, = chainer.grad([y], [x], grad_outputs=[chainer.Variable(numpy.ones_like(x_data))],
                       enable_double_backprop=True)
    # d/dx sum(gx) with gy = 1 is the elementwise second derivative.
    ggx, = chainer.grad([F.sum(gx)], [x])
    numpy.testing.assert_allclose(ggx.array, _curvature_reference(x_data, beta), rtol=1e-4)
    assert ggx.dtype == numpy.float32
