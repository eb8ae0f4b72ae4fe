"""pad: values for several modes and widths, exact gradients for copying modes, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.pad import pad
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("pad_width, mode, keywords", [
    (1, "constant", {}), (((1, 2), (0, 1)), "constant", {"constant_values": 3.0}),
    ((2, 1), "edge", {}), (((1, 1), (2, 0)), "reflect", {}), (2, "symmetric", {}),
    (((0, 2), (3, 1)), "wrap", {})])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(pad_width, mode, keywords, dtype, uniform,
                                          check_function):
    x = uniform((3, 4), dtype)
    check_function(lambda x: pad(x, pad_width, mode, **keywords), (x,),
                   lambda x: numpy.pad(x, pad_width, mode=mode, **keywords))


def test_other_modes_pass_only_the_central_gradient():
    x = Variable(numpy.arange(4.0))
    y = pad(x, 1, "maximum")
    numpy.testing.assert_array_equal(y.array, numpy.pad(x.array, 1, mode="maximum"))
    y.grad = numpy.arange(6.0)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 2.0, 3.0, 4.0])


def test_reflect_gradient_gathers_every_copy():
    x = Variable(numpy.zeros(3))
    y = pad(x, 1, "reflect")  # [x1, x0, x1, x2, x1]
    y.grad = numpy.ones(5)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 3.0, 1.0])


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Pad \(Forward\)[\s\S]*x\.dtype"):
        pad(numpy.ones(3, numpy.int32), 1, "constant")
