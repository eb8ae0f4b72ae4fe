"""linear_interpolate: values, gradients of first and second order, type errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import both_ways

from chainer_compat import Variable
from chainer_compat.functions.math.linear_interpolate import linear_interpolate
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, dtype, uniform, check_function):
    inputs = (uniform(shape, dtype, 0.0, 1.0), uniform(shape, dtype), uniform(shape, dtype))
    check_function(linear_interpolate, inputs, lambda p, x, y: p * x + (1 - p) * y)


def test_weights_zero_and_one_pick_an_input_exactly():
    x = numpy.array([1.5, -2.25], numpy.float32)
    y = numpy.array([3.0, 7.0], numpy.float32)
    numpy.testing.assert_array_equal(
        linear_interpolate(numpy.ones(2, numpy.float32), x, y).array, x)
    numpy.testing.assert_array_equal(
        linear_interpolate(numpy.zeros(2, numpy.float32), x, y).array, y)


def test_shapes_and_dtypes_must_agree():
    p = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"LinearInterpolate[\s\S]*p\.shape == y"):
        linear_interpolate(p, p, numpy.zeros((2, 4), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype == p\.dtype"):
        linear_interpolate(p, p.astype(numpy.float64), p)
    with pytest.raises(type_check.InvalidType, match=r"p\.dtype\.kind"):
        linear_interpolate(p.astype(numpy.int32), p, p)


def test_gradient_node_gives_the_gradients_computed_without_it():
    # Under a hook the backward applies LinearInterpolateGrad; without one, the same arithmetic.
    rng = numpy.random.default_rng(4)
    arrays = [rng.uniform(0, 1, (5,)).astype(numpy.float32) for _ in range(4)]

    def run_backward(backward_context):
        inputs = [Variable(a.copy()) for a in arrays[:3]]
        z = linear_interpolate(*inputs)
        z.grad = arrays[3].copy()
        with backward_context:
            z.backward()
        return [v.grad for v in inputs]

    direct, through_node, labels = both_ways(run_backward)
    assert labels == ["LinearInterpolateGrad"]
    for plain, hooked in zip(direct, through_node):
        numpy.testing.assert_array_equal(plain, hooked)
