"""im2col's bad size arguments: each error is ours and also the exception Chainer 7.8.1 raises."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.functions.array.im2col import im2col


def _x():
    return numpy.random.RandomState(0).uniform(-1, 1, (1, 2, 4, 4)).astype(numpy.float32)


@pytest.mark.parametrize("ksize", [(2, 2, 2, 2, 2), "2", (2,)])
def test_ksize_of_wrong_length_is_value_and_assertion_error(ksize):
    with pytest.raises(ValueError, match=r"^ksize must be an int or a sequence of 2 ints") as info:
        im2col(_x(), ksize)
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("kwargs", [dict(ksize=1.5), dict(ksize=2, stride="22"),
                                    dict(ksize=2, pad=None), dict(ksize=2, dilate=2.0)])
def test_non_integer_size_raises_type_error(kwargs):
    name = next(k for k in ("stride", "pad", "dilate") if k in kwargs) if len(kwargs) > 1 \
        else "ksize"
    with pytest.raises(TypeError, match=f"^{name} must be an int or a sequence of 2 ints"):
        im2col(_x(), **kwargs)


@pytest.mark.parametrize("value", [numpy.int64(2), numpy.int32(2), numpy.array(2)])
def test_numpy_integer_sizes_work(value):
    expected = im2col(_x(), 2, stride=2)
    numpy.testing.assert_array_equal(im2col(_x(), value, stride=value).array, expected.array)


@pytest.mark.parametrize("dilate", [-1, (1, -3)])
def test_negative_dilation_raises_value_error(dilate):
    # The taps would reach before the image's first pixel.
    with pytest.raises(ValueError, match="^dilate of im2col must be non-negative"):
        im2col(_x(), 2, dilate=dilate)


def test_empty_output_starts_with_chainers_sentence():
    with pytest.raises(RuntimeError, match=r"^Height in the output should be positive\.\n") as info:
        im2col(_x(), 100)
    assert isinstance(info.value, AssertionError)
