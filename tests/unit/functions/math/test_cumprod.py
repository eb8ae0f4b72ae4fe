"""cumprod: values along each axis and flattened, exact gradients with zeros, argument errors."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat.functions.math.cumprod import Cumprod, cumprod
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, axis", [((4,), 0), ((2, 3, 4), 0), ((2, 3, 4), 1),
                                         ((2, 3, 4), -1), ((2, 3), None), ((), None),
                                         ((3, 1), 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, axis, dtype, uniform, check_function):
    check_function(lambda x: cumprod(x, axis=axis), (uniform(shape, dtype, gap=0.2),),
                   lambda x: numpy.cumprod(x, axis=axis))


@pytest.mark.parametrize("zeros", [[(0, 1)], [(1, 0), (1, 2)], [(0, 3)]])
def test_gradients_stay_exact_with_zero_inputs(zeros, xp, uniform, check_function):
    x = uniform((2, 4), numpy.float64, gap=0.2)
    for index in zeros:
        x[index] = 0.0
    check_function(lambda x: cumprod(x, axis=1), (x,), lambda x: numpy.cumprod(x, axis=1))


def test_empty_axis_gives_empty_gradient():
    import chainer_compat

    x = chainer_compat.Variable(numpy.zeros((2, 0)))
    y = cumprod(x, axis=1)
    y.grad = numpy.zeros((2, 0))
    y.backward()
    assert x.grad.shape == (2, 0)


def test_argument_and_type_errors():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Cumprod \(Forward\)"):
        cumprod(x, axis=2)
    with pytest.raises(type_check.InvalidType):
        cumprod(x, axis=-3)
    with pytest.raises(TypeError, match="axis must be int or None"):
        Cumprod(axis=(0,))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind"):
        cumprod(numpy.arange(3))


def test_a_hook_sees_chainers_gradient_nodes():
    x = numpy.array([[1.5, -2.0, 0.0, 3.0], [0.5, 4.0, -1.0, 2.0]], numpy.float32)
    gy = numpy.ones_like(x)
    plain, hooked, labels = gradients_under_a_hook(lambda x: cumprod(x, axis=1), (x,), gy)
    # Chainer 7.8.1's sequence: a cumulative product-sum run from the end, scaled by the
    # earlier products.
    assert labels == ["SplitAxis", "Flip", "Flip", "Cumprodsum", "Flip", "SplitAxis", "Concat",
                      "_ * _"]
    numpy.testing.assert_array_equal(hooked[0], plain[0])
    # d/dx0 of x0 + x0 x1 + x0 x1 x2 + ... for the first row.
    numpy.testing.assert_array_equal(plain[0][0, 0], 1 - 2.0)
