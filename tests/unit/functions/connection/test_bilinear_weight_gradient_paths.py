"""bilinear's two weight-gradient contractions: Chainer's dot per weight entry, taken up to
``_CHAINER_DOT_LIMIT`` multiply-adds, and one matrix product past it, compute the same thing."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import functions as F
from chainer_compat.functions.connection import bilinear as bilinear_module


def _gradients(arrays):
    variables = [chainer_compat.Variable(a) for a in arrays]
    y = F.bilinear(*variables)
    y.grad = numpy.random.RandomState(1).standard_normal(y.shape).astype(y.dtype)
    y.backward()
    return [v.grad for v in variables]


@pytest.mark.parametrize("with_linear", [False, True])
def test_matrix_product_path_computes_what_the_dot_path_does(monkeypatch, with_linear):
    rng = numpy.random.RandomState(0)
    arrays = [rng.standard_normal(shape).astype(numpy.float32)
              for shape in ((6, 2, 3), (6, 4), (6, 4, 5))]
    if with_linear:
        arrays += [rng.standard_normal(shape).astype(numpy.float32)
                   for shape in ((6, 5), (4, 5), (5,))]
    by_dots = _gradients(arrays)
    monkeypatch.setattr(bilinear_module, "_CHAINER_DOT_LIMIT", 0)
    by_product = _gradients(arrays)
    for expected, actual in zip(by_dots, by_product):
        assert actual.shape == expected.shape
        numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_second_order_gradient_for_one_input_only():
    # Only W's gradient is differentiated again: the other incoming gradients are None.
    rng = numpy.random.RandomState(2)
    e1, e2, w = (chainer_compat.Variable(rng.standard_normal(shape))
                 for shape in ((5, 3), (5, 4), (3, 4, 2)))
    gw, = chainer_compat.grad([F.sum(F.bilinear(e1, e2, w) ** 2)], [w],
                              enable_double_backprop=True)
    ge2, = chainer_compat.grad([F.sum(gw * gw)], [e2])

    def loss(e2_array):
        inner = chainer_compat.Variable(e2_array)
        g, = chainer_compat.grad([F.sum(F.bilinear(e1, inner, w) ** 2)], [w],
                                 enable_double_backprop=True)
        return float(F.sum(g * g).array)

    numerical = numpy.zeros(e2.shape)
    step = 1e-6
    for index in numpy.ndindex(e2.shape):
        shifted = e2.array.copy()
        shifted[index] += step
        upper = loss(shifted)
        shifted[index] -= 2 * step
        numerical[index] = (upper - loss(shifted)) / (2 * step)
    numpy.testing.assert_allclose(ge2.array, numerical, rtol=1e-5, atol=1e-6)
