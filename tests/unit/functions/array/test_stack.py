"""stack and separate: values along any axis, gradients, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.separate import separate
from chainer_compat.functions.array.stack import stack
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, count, axis", [
    ((2, 3), 3, 0), ((2, 3), 2, 1), ((2, 3), 2, 2), ((2, 3), 2, -1), ((2, 3), 2, -3),
    ((), 3, 0), ((4,), 1, 0)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_stack_values_and_gradients_match_numpy(shape, count, axis, dtype, uniform,
                                                check_function):
    xs = tuple(uniform(shape, dtype) for _ in range(count))
    check_function(lambda *xs: stack(xs, axis), xs, lambda *xs: numpy.stack(xs, axis))


@pytest.mark.parametrize("shape, axis", [((3, 2), 0), ((3, 2), 1), ((2, 3, 4), -1), ((1,), 0)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_separate_values_and_gradients_match_numpy(shape, axis, dtype, uniform,
                                                   check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: separate(x, axis), (x,),
                   lambda x: tuple(numpy.moveaxis(x, axis, 0)))


def test_separate_always_returns_a_tuple():
    ys = separate(numpy.ones((1, 3)))
    assert isinstance(ys, tuple) and len(ys) == 1


def test_separate_gives_unused_slices_zero_gradient():
    x = Variable(numpy.ones((3, 2), numpy.float32))
    ys = separate(x)
    ys[1].grad = numpy.ones(2, numpy.float32)
    ys[1].backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0], [1, 1], [0, 0]])


def test_stack_of_different_shapes_is_rejected():
    # Chainer's expression and order: the later input on the left.
    with pytest.raises(type_check.InvalidType) as info:
        stack([numpy.ones((2, 3)), numpy.ones((3, 2))])
    assert str(info.value).endswith(
        "Expect: in_types[1].shape == in_types[0].shape\nActual: (3, 2) != (2, 3)")


def test_stack_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match="ndim"):
        stack([numpy.ones((2, 3))], axis=3)


def test_separate_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"Separate \(Forward\)[\s\S]*ndim"):
        separate(numpy.ones((2, 3)), axis=2)
