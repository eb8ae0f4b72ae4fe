"""moveaxis: NumPy's errors and wording for repeated, mismatched and (with type checks off)
out-of-range axes, as Chainer's users see them."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import using_config
from chainer_compat.functions.array.moveaxis import moveaxis
from chainer_compat.utils import type_check


@pytest.mark.parametrize("source, destination, match", [
    ((0, 0), (1, 2), r"source must not repeat an axis, got \(0, 0\): repeated axis in "
                     r"`source` argument"),
    ((0, -3), (1, 2), r"repeated axis in `source` argument"),
    ((0, 1), (2, -1), r"destination must not repeat an axis[\s\S]*repeated axis in "
                      r"`destination` argument"),
])
def test_repeated_axis_is_a_value_error_with_numpys_wording(source, destination, match):
    with pytest.raises(ValueError, match=match):
        moveaxis(numpy.ones((2, 3, 4)), source, destination)


def test_length_mismatch_keeps_numpys_wording():
    with pytest.raises(ValueError, match="`source` and `destination` arguments must have the "
                                         "same number of elements"):
        moveaxis(numpy.ones((2, 3, 4)), (0, 1), (2,))


@pytest.mark.parametrize("source, destination", [(3, 0), (0, -4), ((0, 1), (1, 5))])
def test_out_of_range_is_invalid_type_with_type_check_on(source, destination):
    with pytest.raises(type_check.InvalidType, match=r"Moveaxis \(Forward\)"):
        moveaxis(numpy.ones((2, 3, 4)), source, destination)


@pytest.mark.parametrize("source, destination, name", [
    (3, 0, "source"), (-4, 0, "source"), (0, 3, "destination"), ((0, 1), (1, -5), "destination")])
def test_out_of_range_with_type_check_off_is_numpys_axis_error(source, destination, name):
    # The modulo in forward used to pick another axis silently here.
    with using_config("type_check", False), pytest.raises(
            numpy.exceptions.AxisError, match=rf"{name}: axis -?\d is out of bounds for array "
                                              "of dimension 3"):
        moveaxis(numpy.ones((2, 3, 4)), source, destination)


@pytest.mark.parametrize("source, destination", [(0, -1), ((0, 2), (2, 0)), (-1, 0)])
def test_valid_axes_match_numpy_with_type_check_off(source, destination):
    x = numpy.arange(24.0).reshape(2, 3, 4)
    with using_config("type_check", False):
        y = moveaxis(x, source, destination)
    numpy.testing.assert_array_equal(y.array, numpy.moveaxis(x, source, destination))


@pytest.mark.parametrize("first, second", [(0, 2), (-1, 0), ((0, 1), (2, 0))])
def test_a_hook_sees_chainers_gradient_node(first, second):
    x = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    gy = numpy.moveaxis(x * 2 - 5, first, second)
    plain, hooked, labels = gradients_under_a_hook(lambda x: moveaxis(x, first, second), (x,), gy)
    assert labels == ["Moveaxis"]  # Chainer 7.8.1's: the inverse moveaxis
    numpy.testing.assert_array_equal(plain[0], x * 2 - 5)
    numpy.testing.assert_array_equal(hooked[0], plain[0])
