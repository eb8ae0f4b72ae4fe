"""How ``utils.conv`` reads size arguments and checks im2col's strides and dilations."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.utils import conv, conv_nd


@pytest.mark.parametrize("stride", [0, (1, 0)])
def test_im2col_zero_stride_is_value_and_zero_division_error(stride):
    sy, sx = (stride, stride) if isinstance(stride, int) else stride
    with pytest.raises(ValueError, match="^stride of im2col must be positive") as info:
        conv.im2col(numpy.zeros((1, 1, 4, 4), "f"), 2, 2, sy, sx, 0, 0)
    assert isinstance(info.value, ZeroDivisionError)


def test_im2col_negative_stride_is_value_and_assertion_error():
    # With cover_all, a negative stride gave two windows, the second one above the image.
    with pytest.raises(ValueError, match="^stride of im2col must be positive") as info:
        conv.im2col(numpy.zeros((1, 1, 3, 3), "f"), 2, 2, -1, -1, 0, 0, cover_all=True)
    assert isinstance(info.value, AssertionError)


def test_im2col_negative_dilation_raises_value_error():
    with pytest.raises(ValueError, match="^dilate of im2col must be non-negative"):
        conv.im2col(numpy.zeros((1, 1, 4, 4), "f"), 2, 2, 1, 1, 0, 0, dy=-1)


def test_im2col_nd_empty_output_starts_with_chainers_sentence():
    with pytest.raises(RuntimeError, match=r"^Output sizes should be positive\.\n") as info:
        conv_nd.im2col_nd(numpy.zeros((1, 1, 3, 3), "f"), (5, 5), (1, 1), (0, 0))
    assert isinstance(info.value, AssertionError)
