"""``dilated_convolution_2d``: 2-D convolution whose filter taps are spaced ``dilate`` apart.

Layer 5: imports variable and ``functions.connection.convolution_2d``, which does the work.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.connection.convolution_2d import convolution_2d


def dilated_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                           dilate: Any = 1, cover_all: bool = False) -> variable.Variable:
    """Two-dimensional dilated (atrous) convolution.

    The same as :func:`~chainer_compat.functions.convolution_2d` with its ``dilate`` argument;
    note that here ``dilate`` comes before ``cover_all`` positionally, as in Chainer.

    Args:
        x: Input Variable or array of shape ``(n, c_I, h_I, w_I)``.
        W: Filters of shape ``(c_O, c_I, h_K, w_K)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(h_P, w_P)``.
        dilate: Dilation ``d`` or ``(d_Y, d_X)``: the spacing of the filter taps.
        cover_all: See :func:`~chainer_compat.functions.convolution_2d`.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)`` with ``h_O = (h_I + 2 h_P - h_K') // s_Y
        + 1`` and ``h_K' = h_K + (h_K - 1)(d_Y - 1)`` (likewise ``w_O``).

    Raises:
        ValueError: If a stride or dilation is below 1 or a padding is negative.
        RuntimeError: If the output would be empty.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched shapes.
    """
    return convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate)
