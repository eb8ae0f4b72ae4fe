"""absolute (from basic_math): values, gradients away from zero, type errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.math.basic_math import absolute
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_absolute_values_and_gradients(shape, dtype, xp, check_function):
    # Magnitudes away from zero, where |x| has a kink.
    host = numpy.random.uniform(0.2, 1.0, shape) * numpy.where(
        numpy.random.uniform(size=shape) > 0.5, 1, -1)
    check_function(absolute, (xp.asarray(host.astype(dtype)),), numpy.abs)


def test_abs_operator_is_absolute():
    x = Variable(numpy.array([-2.0, 3.0], numpy.float32))
    y = abs(x)
    numpy.testing.assert_array_equal(y.array, [2.0, 3.0])
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [-1.0, 1.0])


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        absolute(Variable(numpy.arange(3)))
