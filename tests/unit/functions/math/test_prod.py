"""prod: values, gradients of first and second order (also with zero factors), errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import Variable
from chainer_compat.functions.math.prod import Prod, prod
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(axis, keepdims, dtype, uniform, check_function):
    check_function(lambda x: prod(x, axis=axis, keepdims=keepdims),
                   (uniform((2, 3, 4), dtype, 0.5, 1.5),),
                   lambda x: numpy.prod(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("zeros", [[(0, 1, 2)], [(0, 1, 2), (0, 1, 0)], [(1, 0, 0), (1, 2, 3)]])
@pytest.mark.parametrize("axis", [None, 2, (1, 2)])
def test_gradients_are_exact_with_zero_factors(zeros, axis, xp, check_function):
    x = numpy.random.uniform(0.5, 1.5, (2, 3, 4))
    for index in zeros:
        x[index] = 0.0
    check_function(lambda v: prod(v, axis=axis), (xp.asarray(x),),
                   lambda v: numpy.prod(v, axis=axis))


def test_gradient_with_one_zero_is_the_product_of_the_others():
    x = Variable(numpy.array([2.0, 0.0, 3.0, 4.0]))
    prod(x).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 24.0, 0.0, 0.0])


def test_scalar_and_single_element_inputs(uniform, check_function):
    check_function(prod, (uniform((), numpy.float64, 0.5, 1.5),), numpy.prod)
    check_function(lambda x: prod(x, axis=0), (uniform((1, 3), numpy.float64, 0.5, 1.5),),
                   lambda x: numpy.prod(x, axis=0))


def test_empty_reduction_gives_one_and_an_empty_gradient():
    x = Variable(numpy.zeros((0, 3)))
    y = prod(x, axis=0)
    numpy.testing.assert_array_equal(y.array, numpy.ones(3))
    y.grad = numpy.ones(3)
    y.backward()
    assert x.grad.shape == (0, 3)


def test_argument_and_type_errors():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Prod \(Forward\)"):
        prod(x, axis=2)
    with pytest.raises(ValueError, match="duplicate value in axis"):
        Prod(axis=(1, 1))
    with pytest.raises(TypeError, match="axis must be"):
        prod(x, axis="0")
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        prod(numpy.arange(3))


@pytest.mark.parametrize("axis, labels", [
    # Chainer 7.8.1's sequences: the products before and after each position as shifted
    # cumulative products; gy regains the reduced axes by ExpandDims.
    (1, ["ExpandDims", "Transpose", "Concat", "SplitAxis", "Cumprod", "Flip", "Concat",
         "SplitAxis", "Cumprod", "Flip", "_ * _", "Transpose", "_ * _"]),
    (None, ["ExpandDims", "ExpandDims", "Transpose", "Reshape", "Concat", "SplitAxis",
            "Cumprod", "Flip", "Concat", "SplitAxis", "Cumprod", "Flip", "_ * _", "Reshape",
            "Transpose", "_ * _"]),
])
def test_a_hook_sees_chainers_gradient_nodes(axis, labels):
    x = numpy.array([[1.5, -2.0, 0.0, 3.0], [0.5, 4.0, -1.0, 2.0]], numpy.float32)
    gy = numpy.asarray(numpy.linspace(1, 2, x.prod(axis=axis).size).reshape(
        x.prod(axis=axis).shape), numpy.float32)
    plain, hooked, seen = gradients_under_a_hook(lambda x: prod(x, axis=axis), (x,), gy)
    assert seen == labels
    numpy.testing.assert_array_equal(hooked[0], plain[0])
    if axis == 1:
        numpy.testing.assert_array_equal(plain[0][0], [0.0, 0.0, -9.0 * gy[0], 0.0])
