"""split_axis: sections and indices, force_tuple, gradients with unused pieces, checks."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import Variable, using_config
from chainer_compat.functions.array.split_axis import split_axis
from chainer_compat.utils import type_check

FLOAT_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("shape, indices_or_sections, axis", [
    ((4, 6), 3, 1), ((4, 6), [1, 4], 1), ((4, 6), numpy.array([2]), 0), ((2, 3, 4), 2, -1),
    ((4, 3), [0, 4], 0), ((4, 3), 1, 0)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_gradients_match_numpy(shape, indices_or_sections, axis, dtype, uniform,
                                          check_function):
    x = uniform(shape, dtype)
    check_function(lambda x: split_axis(x, indices_or_sections, axis), (x,),
                   lambda x: tuple(numpy.split(x, indices_or_sections, axis)))


def test_force_tuple_false_returns_a_single_piece_as_a_variable():
    y = split_axis(numpy.ones((2, 3)), 1, 0, force_tuple=False)
    assert isinstance(y, Variable)
    assert isinstance(split_axis(numpy.ones((2, 3)), 1, 0), tuple)
    assert isinstance(split_axis(numpy.ones((2, 4)), 2, 1, force_tuple=False), tuple)


def test_unused_pieces_get_zero_gradient():
    x = Variable(numpy.ones((2, 6), numpy.float32))
    first, _, _ = split_axis(x, 3, 1)
    first.grad = numpy.full((2, 2), 3.0, numpy.float32)
    first.backward()
    numpy.testing.assert_array_equal(x.grad[:, :2], 3.0)
    numpy.testing.assert_array_equal(x.grad[:, 2:], 0.0)


def test_uneven_sections_are_rejected():
    with pytest.raises(type_check.InvalidType, match=r"SplitAxis \(Forward\)[\s\S]*sections"):
        split_axis(numpy.ones((2, 5)), 2, 1)


def test_index_beyond_the_axis_is_rejected():
    with pytest.raises(type_check.InvalidType, match="max_index"):
        split_axis(numpy.ones((2, 5)), [1, 6], 1)


def test_axis_out_of_range_is_rejected():
    with pytest.raises(type_check.InvalidType, match="ndim"):
        split_axis(numpy.ones((2, 5)), 1, 2)


def test_bad_indices_type_is_rejected():
    with pytest.raises(TypeError, match="indices_or_sections must be integer or 1-D array"):
        split_axis(numpy.ones((2, 5)), 1.5, 1)


def test_unsorted_indices_are_rejected_in_debug_mode():
    with using_config("debug", True), pytest.raises(ValueError, match="must be sorted"):
        split_axis(numpy.ones((2, 5)), [3, 1], 1)


@pytest.mark.parametrize("indices_or_sections", [2, [1], []])
def test_negative_axis_out_of_range_raises_index_error_as_chainer(indices_or_sections):
    # Chainer checks only axis < ndim; a negative axis past the first fails on x.shape[axis].
    with pytest.raises(IndexError, match=r"axis must be in \[-2, 2\)[\s\S]*got -3") as info:
        split_axis(numpy.ones((2, 4)), indices_or_sections, -3)
    assert not isinstance(info.value, type_check.InvalidType)


def test_negative_axis_out_of_range_with_type_check_off_is_an_index_error():
    with using_config("type_check", False), pytest.raises(IndexError):
        split_axis(numpy.ones((2, 4)), 2, -3)


def test_a_single_piece_joins_its_gradient_with_a_concat_node_as_chainer_does():
    x = Variable(numpy.ones((2, 3), numpy.float32))
    y, = split_axis(x, 1, 0)
    gy = numpy.full((2, 3), 2.0, numpy.float32)
    y.grad = gy
    y.backward(enable_double_backprop=True)
    assert x.grad_var.creator.label == "Concat"
    assert x.grad.tolist() == gy.tolist() and x.grad is not gy


def test_type_errors_name_the_input_as_chainer_does():
    with pytest.raises(type_check.InvalidType) as info:
        split_axis(numpy.ones((2, 1), numpy.float32), 2, 1)
    assert str(info.value).endswith(
        "Expect: in_types[0].shape[1] % sections == 0\nActual: 1 != 0")
