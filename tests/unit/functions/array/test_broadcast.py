"""broadcast_to and broadcast: values, gradients summed back, shortcuts, shape errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable
from chainer_compat.functions.array.broadcast import broadcast, broadcast_to
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("in_shape, out_shape", [
    ((3,), (2, 3)), ((2, 1), (2, 4)), ((), (3, 2)), ((1, 3, 1), (2, 3, 4))])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_broadcast_to_values_and_gradients(in_shape, out_shape, dtype, uniform,
                                           check_function):
    x = uniform(in_shape, dtype)
    check_function(lambda x: broadcast_to(x, out_shape), (x,),
                   lambda x: numpy.broadcast_to(x, out_shape))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_broadcast_values_and_gradients(dtype, uniform, check_function):
    inputs = (uniform((3, 1), dtype), uniform((4,), dtype), uniform((), dtype))
    check_function(lambda *xs: broadcast(*xs), inputs,
                   lambda *xs: tuple(numpy.broadcast_arrays(*xs)))


def test_broadcast_to_same_shape_returns_the_variable_itself():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    assert broadcast_to(x, (2, 3)) is x


def test_broadcast_of_one_input_returns_it_as_a_variable():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    assert broadcast(x) is x
    assert isinstance(broadcast(numpy.ones(2)), Variable)


def test_broadcast_to_incompatible_shape_is_rejected():
    # Chainer's wording, word for word (it names the input in_type[0]).
    with pytest.raises(type_check.InvalidType) as info:
        broadcast_to(numpy.ones((2, 3)), (2, 4))
    assert str(info.value).endswith(
        "Expect: in_type[0].shape[-1] == 4 or in_type[0].shape[-1] == 1\n"
        "Actual: in_type[0].shape: (2, 3)")


def test_broadcast_to_fewer_dimensions_is_rejected():
    with pytest.raises(type_check.InvalidType, match=r"len\(shape\)"):
        broadcast_to(numpy.ones((2, 3)), (3,))


def test_broadcast_of_incompatible_shapes_is_rejected():
    with pytest.raises(type_check.InvalidType, match="cannot broadcast"):
        broadcast(numpy.ones((2, 3)), numpy.ones((4,)))


def test_broadcast_of_nothing_is_rejected():
    with pytest.raises(type_check.InvalidType):
        broadcast()
