"""Error paths of the array functions that a differential fuzz against Chainer 7.8.1 found
differing: each now matches Chainer's type (and result, where Chainer succeeds)."""

from __future__ import annotations

import numpy
import pytest

import chainer_compat.functions as F
from chainer_compat import Variable
from chainer_compat.utils import type_check


@pytest.mark.parametrize("function", [F.fliplr, F.flipud, lambda a: F.moveaxis(a, 0, 1)])
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.bool_])
def test_flips_and_moveaxis_take_only_float_input_as_in_chainer(function, dtype):
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == f"):
        function(numpy.ones((2, 3), dtype))


def test_transpose_sequence_of_mixed_dtypes_has_the_first_arrays_dtype():
    first = numpy.arange(6, dtype=numpy.int32).reshape(3, 2)
    second = numpy.full((2, 2), 1.7, numpy.float32)
    ys = F.transpose_sequence([first, second])
    assert [y.dtype for y in ys] == [numpy.int32] * 3
    # Chainer's assignment truncates the floats.
    assert ys[0].array.tolist() == [[0, 1], [1, 1]]


def test_transpose_sequence_of_mixed_dtypes_gives_each_input_its_own_gradient_dtype():
    a = Variable(numpy.ones((3, 2), numpy.float16))
    b = Variable(numpy.ones((2, 2), numpy.float32))
    ys = F.transpose_sequence([a, b])
    assert [y.dtype for y in ys] == [numpy.float16] * 3
    F.sum(F.concat(ys, axis=0)).backward()
    assert a.grad.dtype == numpy.float16
    assert b.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(b.grad, numpy.ones((2, 2)))


@pytest.mark.parametrize("repeats", [2, (2,), (3,)])
@pytest.mark.parametrize("axis", [0, -1])
def test_repeat_reads_a_0d_array_as_1d_along_an_axis_as_numpy(repeats, axis):
    x = Variable(numpy.array(1.5, numpy.float32))
    y = F.repeat(x, repeats, axis=axis)
    expected = numpy.repeat(x.array, repeats, axis=axis)
    assert y.shape == expected.shape
    numpy.testing.assert_array_equal(y.array, expected)
    grad = numpy.arange(1, y.size + 1, dtype=numpy.float32)
    y.grad = grad
    y.backward()
    assert x.grad.shape == ()
    assert x.grad == grad.sum()


def test_repeat_0d_array_axis_1_is_out_of_range():
    with pytest.raises(numpy.exceptions.AxisError, match=r"\[-1, 1\).*0-d"):
        F.repeat(numpy.ones((), numpy.float32), 2, axis=1)


@pytest.mark.parametrize("indices_or_sections", ["2", "12", 2.0, b"2"])
def test_split_axis_rejects_str_and_float_with_chainers_message(indices_or_sections):
    with pytest.raises(TypeError, match=r"^indices_or_sections must be integer or 1-D array\.\n"
                                        r"Actual: <class"):
        F.split_axis(numpy.ones((2, 6), numpy.float32), indices_or_sections, 1)


@pytest.mark.parametrize(("indices_or_sections", "message"), [
    ([1.5], "must be integers"), (numpy.array([1.0]), "must be integers"),
    (numpy.ones((1, 1), numpy.int32), "must be 1-D sequence")])
def test_split_axis_rejects_indices_that_are_not_1d_ints(indices_or_sections, message):
    with pytest.raises(TypeError, match=message):
        F.split_axis(numpy.ones((2, 6), numpy.float32), indices_or_sections, 1)


def test_split_axis_takes_a_0d_int_array_as_sections_as_chainer():
    ys = F.split_axis(numpy.ones((2, 6), numpy.float32), numpy.array(2), 1)
    assert [y.shape for y in ys] == [(2, 3), (2, 3)]


@pytest.mark.parametrize("sections", [0, -1])
def test_split_axis_sections_not_positive_is_numpys_value_error_and_zero_division(sections):
    with pytest.raises(ValueError, match=r"^number sections must be larger than 0\.") as info:
        F.split_axis(numpy.ones((2, 6), numpy.float32), sections, 1)
    assert isinstance(info.value, ZeroDivisionError)  # what Chainer raises for 0


def test_get_item_of_none_is_a_type_error():
    with pytest.raises(TypeError, match="x of get_item must be a Variable or an array"):
        F.get_item(None, 0)


def test_reshape_with_two_unknown_dimensions_is_also_an_assertion_error():
    with pytest.raises(AssertionError, match="at most one unknown dimension") as info:
        F.reshape(numpy.ones(4, numpy.float32), (-1, -1))
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("mode", ["foo", None])
def test_resize_images_unknown_mode_is_also_an_assertion_error(mode):
    with pytest.raises(AssertionError, match="mode must be 'bilinear' or 'nearest'") as info:
        F.resize_images(numpy.ones((1, 1, 2, 2), numpy.float32), (3, 3), mode=mode)
    assert isinstance(info.value, ValueError)


def test_tile_messages_start_with_chainers():
    with pytest.raises(ValueError, match="^All elements in reps must be zero or larger"):
        F.tile(numpy.ones(2, numpy.float32), -1)
    with pytest.raises(TypeError, match=r"^reps must be int or tuple of ints\.\n"
                                        r"Actual: <class 'float'>"):
        F.tile(numpy.ones(2, numpy.float32), 1.5)


def test_permutate_float_indices_message_starts_with_chainers():
    with pytest.raises(ValueError, match="^indices should be a one-dimensional int array"):
        F.permutate(numpy.ones((3, 2), numpy.float32), numpy.array([0., 1., 2.], numpy.float32))
