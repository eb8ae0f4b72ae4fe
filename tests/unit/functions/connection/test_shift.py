"""shift: centre group unchanged, zero fill, gradients of every order, errors."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat import gradient_check
from chainer_compat.functions.connection.shift import shift
from chainer_compat.utils import type_check


def _host(array):
    return array.get() if hasattr(array, "get") else numpy.asarray(array)


def test_leftover_channels_and_one_by_one_window_stay_in_place(xp):
    x = numpy.random.default_rng(0).standard_normal((2, 11, 4, 4)).astype(numpy.float32)
    y = _host(shift(xp.asarray(x), 3).array)
    # Groups of one channel: the last group (channels 8 and up) is the centre one.
    numpy.testing.assert_array_equal(y[:, 8:], x[:, 8:])
    numpy.testing.assert_array_equal(_host(shift(xp.asarray(x), 1).array), x)


def test_first_group_reads_from_down_right_and_fills_zeros():
    # Group 0 has window offset (-1, -1): y[r, c] = x[r + 1, c + 1].
    x = numpy.ones((1, 9, 3, 3))
    y = shift(x, 3).array
    expected = numpy.zeros((3, 3))
    expected[:2, :2] = 1
    numpy.testing.assert_array_equal(y[0, 0], expected)


@pytest.mark.parametrize("ksize,dilate", [(3, 1), ((1, 3), (1, 2)), (3, 4)])
def test_gradients_of_first_and_second_order(ksize, dilate):
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((1, 10, 3, 5))
    gy = rng.standard_normal(x.shape)
    function = lambda x: shift(x, ksize, dilate)  # noqa: E731
    gradient_check.check_backward(function, x, gy)
    gradient_check.check_double_backward(function, x, gy, rng.standard_normal(x.shape))


def test_errors():
    with pytest.raises(ValueError, match="kw must be odd"):
        shift(numpy.zeros((1, 9, 2, 2)), (3, 2))
    with pytest.raises(type_check.InvalidType):
        shift(numpy.zeros((1, 8, 2, 2)), 3)
