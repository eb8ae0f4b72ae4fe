"""minimum: the values and tie rule specific to the minimum (the rest is in test_maximum)."""

from __future__ import annotations

import numpy

from chainer_compat import Variable
from chainer_compat.functions.math.minimum import minimum


def test_picks_the_smaller_element_and_routes_its_gradient():
    x1 = Variable(numpy.array([1.0, 5.0, -2.0], numpy.float64))
    x2 = Variable(numpy.array([3.0, 4.0, -2.0], numpy.float64))
    y = minimum(x1, x2)
    numpy.testing.assert_array_equal(y.array, [1.0, 4.0, -2.0])
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x1.grad, [1.0, 0.0, 1.0])
    numpy.testing.assert_array_equal(x2.grad, [0.0, 1.0, 0.0])
