"""get_item: basic and advanced indexing, repeated indices, boolean masks, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, using_config
from chainer_compat.functions.array.get_item import GetItem, get_item

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SLICES = [
    1,
    slice(0, 2),
    (slice(None), 1),
    (Ellipsis, 2),
    (None, slice(1, 3), None),
    ([0, 2, 2],),
    (slice(None), [1, 1, 0]),
    (numpy.array([True, False, True]),),
    (numpy.array([[0, 1], [2, 2]]), Ellipsis, 3),
    (),
]


@pytest.mark.parametrize("slices", SLICES, ids=[repr(s) for s in SLICES])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(slices, dtype, uniform, check_function):
    x = uniform((3, 2, 4), dtype)
    check_function(lambda x: get_item(x, slices), (x,), lambda x: numpy.asarray(x[slices]))


def test_repeated_indices_accumulate_gradients():
    x = Variable(numpy.zeros(3, numpy.float32))
    y = get_item(x, [0, 0, 2])
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 0.0, 1.0])


def test_list_of_ints_is_one_index_array():
    x = numpy.arange(12).reshape(3, 4)
    numpy.testing.assert_array_equal(get_item(x, [0, 2]).array, x[[0, 2]])


def test_list_of_slices_is_a_tuple_of_indices():
    x = numpy.arange(12).reshape(3, 4)
    numpy.testing.assert_array_equal(get_item(x, [slice(1, 3), 0]).array, x[1:3, 0])


def test_variable_index_is_read_as_its_array():
    x = numpy.arange(5.0)
    numpy.testing.assert_array_equal(get_item(x, Variable(numpy.array([4, 1]))).array, [4, 1])


def test_variable_operator_uses_get_item():
    x = Variable(numpy.arange(6.0).reshape(2, 3))
    y = x[:, 1]
    assert isinstance(y.creator, GetItem)
    numpy.testing.assert_array_equal(y.array, [1.0, 4.0])


@pytest.mark.parametrize("slices", [
    (0, 0, 0), (slice(None),) * 3, (0, Ellipsis, 0, 0), (0, [0], [0])])
def test_too_many_indices_raise_index_error_as_numpy(slices):
    # Chainer leaves indexing to NumPy: its users catch IndexError, with NumPy's wording.
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, "
                                         "but 3 were indexed"):
        get_item(numpy.ones((2, 3)), slices)


def test_too_many_indices_on_a_variable_raise_index_error():
    with pytest.raises(IndexError, match="x.ndim = 1"):
        Variable(numpy.ones(3))[0, 0]


def test_a_python_bool_index_consumes_no_axis():
    x = numpy.arange(6.0).reshape(2, 3)
    y = get_item(x, (0, 1, True))
    numpy.testing.assert_array_equal(y.array, x[0, 1, True])


def test_two_ellipses_are_rejected_in_debug_mode():
    with using_config("debug", True), pytest.raises(ValueError, match="Only one Ellipsis"):
        get_item(numpy.ones((2, 3)), (Ellipsis, 0, Ellipsis))
