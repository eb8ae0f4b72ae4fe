"""rollaxis: an axis or start out of range, with type checks on (InvalidType, as Chainer's own
check) and off (NumPy's AxisError, never a silently different axis)."""

from __future__ import annotations

import numpy
import pytest
from gradient_paths import gradients_under_a_hook

from chainer_compat import using_config
from chainer_compat.functions.array.rollaxis import rollaxis
from chainer_compat.utils import type_check


@pytest.mark.parametrize("axis, start", [(3, 0), (-4, 0), (0, 4), (0, -4)])
def test_out_of_range_is_invalid_type_with_type_check_on(axis, start):
    with pytest.raises(type_check.InvalidType, match=r"Rollaxis \(Forward\)"):
        rollaxis(numpy.ones((2, 3, 4)), axis, start)


@pytest.mark.parametrize("axis, match", [
    (3, r"axis must be in \[-3, 3\)[\s\S]*axis 3 is out of bounds for array of dimension 3"),
    (-4, r"got -4[\s\S]*axis -4 is out of bounds")])
def test_axis_out_of_range_with_type_check_off_is_numpys_axis_error(axis, match):
    with using_config("type_check", False), pytest.raises(numpy.exceptions.AxisError,
                                                          match=match):
        rollaxis(numpy.ones((2, 3, 4)), axis)


@pytest.mark.parametrize("start", [4, -4])
def test_start_out_of_range_with_type_check_off_is_numpys_axis_error(start):
    with using_config("type_check", False), pytest.raises(
            numpy.exceptions.AxisError, match=rf"'start' arg requires -3 <= start < 4, but "
                                              rf"{start} was passed in"):
        rollaxis(numpy.ones((2, 3, 4)), 0, start)


@pytest.mark.parametrize("axis, start", [(2, 0), (-1, 3), (0, -3), (1, 3), (0, 0)])
def test_valid_axes_match_numpy_with_type_check_off(axis, start):
    x = numpy.arange(24.0).reshape(2, 3, 4)
    with using_config("type_check", False):
        y = rollaxis(x, axis, start)
    numpy.testing.assert_array_equal(y.array, numpy.rollaxis(x, axis, start))


@pytest.mark.parametrize("first, second", [(0, 0), (2, 0), (-1, 1), (0, 3), (1, -3)])
def test_a_hook_sees_chainers_gradient_node(first, second):
    x = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    gy = numpy.rollaxis(x * 2 - 5, first, second)
    plain, hooked, labels = gradients_under_a_hook(lambda x: rollaxis(x, first, second), (x,), gy)
    assert labels == ["Rollaxis"]  # Chainer 7.8.1's: the inverse rollaxis
    numpy.testing.assert_array_equal(plain[0], x * 2 - 5)
    numpy.testing.assert_array_equal(hooked[0], plain[0])
