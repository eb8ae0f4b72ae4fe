"""pad: values for several modes and widths, Chainer's gradient (the central part), checks."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat
from chainer_compat import Variable
from chainer_compat.functions.array.pad import pad
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("pad_width, keywords", [
    (1, {}), (((1, 2), (0, 1)), {"constant_values": 3.0}), ((2, 0), {})])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_constant_values_and_gradients_match_numpy(pad_width, keywords, dtype, uniform,
                                                   check_function):
    x = uniform((3, 4), dtype)
    check_function(lambda x: pad(x, pad_width, "constant", **keywords), (x,),
                   lambda x: numpy.pad(x, pad_width, mode="constant", **keywords))


@pytest.mark.parametrize("pad_width, mode", [
    ((2, 1), "edge"), (((1, 1), (2, 0)), "reflect"), (2, "symmetric"),
    (((0, 2), (3, 1)), "wrap"), (1, "maximum")])
def test_every_mode_pads_as_numpy_and_passes_back_the_central_gradient(pad_width, mode):
    # compat: Chainer's gradient in every mode, not the copies' gradients added back.
    x = Variable(numpy.arange(12.0).reshape(3, 4))
    y = pad(x, pad_width, mode)
    numpy.testing.assert_array_equal(y.array, numpy.pad(x.array, pad_width, mode=mode))
    gy = numpy.arange(y.size, dtype=numpy.float64).reshape(y.shape)
    y.grad = gy
    y.backward()
    widths = numpy.broadcast_to(numpy.asarray(pad_width), (2, 2))
    center = tuple(slice(before, before + size) for (before, _), size in zip(widths, x.shape))
    numpy.testing.assert_array_equal(x.grad, gy[center])


def test_reflect_gradient_is_chainers_not_the_sum_over_copies():
    x = Variable(numpy.zeros(3))
    y = pad(x, 1, "reflect")  # [x1, x0, x1, x2, x1]: x1 appears three times
    y.grad = numpy.ones(5)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 1.0, 1.0])


def test_gradient_is_differentiable_again():
    x = Variable(numpy.arange(4.0))
    y = pad(x, 1, "edge")
    gx, = chainer_compat.grad([y * y], [x], enable_double_backprop=True)
    numpy.testing.assert_array_equal(gx.array, 2 * x.array)
    gx.grad = numpy.ones(4)
    gx.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full(4, 2.0))


def test_integer_input_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Pad \(Forward\)[\s\S]*x\.dtype"):
        pad(numpy.ones(3, numpy.int32), 1, "constant")
