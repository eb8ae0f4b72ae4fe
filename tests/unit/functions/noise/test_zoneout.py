"""zoneout: masks from the seeded generator, gradients through the fixed mask."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat.functions.noise.zoneout import Zoneout, zoneout


def test_gradients_follow_the_mask():
    rng = numpy.random.default_rng(0)
    h = chainer_compat.Variable(rng.standard_normal((4, 5)))
    x = chainer_compat.Variable(rng.standard_normal((4, 5)))
    numpy.random.seed(2)
    y = zoneout(h, x, 0.4)
    node = y.creator
    assert isinstance(node, Zoneout)
    numpy.testing.assert_array_equal(node.flag_h, ~node.flag_x)
    numpy.testing.assert_array_equal(y.array, numpy.where(node.flag_x, x.array, h.array))
    gy = rng.standard_normal((4, 5))
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(h.grad, gy * node.flag_h)
    numpy.testing.assert_array_equal(x.grad, gy * node.flag_x)


def test_second_order_gradient_is_zero_and_defined():
    x = chainer_compat.Variable(numpy.ones((3,)))
    h = chainer_compat.Variable(numpy.zeros((3,)))
    y = zoneout(h, x * x, 0.5)
    gx, = chainer_compat.grad([y], [x], grad_outputs=[numpy.ones(3)],
                              enable_double_backprop=True)
    node = y.creator
    numpy.testing.assert_array_equal(gx.array, 2 * node.flag_x)


def test_ratio_extremes():
    h, x = numpy.zeros(6), numpy.ones(6)
    numpy.testing.assert_array_equal(zoneout(h, x, 0.0).array, x)
    with pytest.raises(TypeError):
        zoneout(h, x, rate=0.1)
