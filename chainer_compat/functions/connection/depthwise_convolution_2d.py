"""``depthwise_convolution_2d``: each input channel convolved with its own filters, the outputs
concatenated rather than summed.

Layer 5: imports variable and functions (``transpose``, ``reshape``, ``convolution_2d``): it is
a grouped convolution with one group per input channel, so double backprop comes for free.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.connection.convolution_2d import convolution_2d


def depthwise_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1,
                             pad: Any = 0) -> variable.Variable:
    """Two-dimensional depthwise convolution.

    Input channel ``c`` is convolved with the ``c_M`` filters ``W[:, c]``, giving output
    channels ``c * c_M`` to ``c * c_M + c_M - 1``; channels are never summed together.

    Args:
        x: Input Variable or array of shape ``(n, c_I, h_I, w_I)``.
        W: Filters of shape ``(c_M, c_I, h_K, w_K)``; ``c_M`` is the channel multiplier.
        b: Optional bias of shape ``(c_I * c_M,)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(h_P, w_P)``.

    Returns:
        A Variable of shape ``(n, c_I * c_M, h_O, w_O)``, with the output size of
        :func:`~chainer_compat.functions.convolution_2d`.

    Raises:
        ValueError: If a stride is below 1 or a padding is negative.
        RuntimeError: If the output would be empty.
        chainer_compat.utils.type_check.InvalidType: On non-float inputs or mismatched shapes.
    """
    multiplier, in_channels, kh, kw = W.shape
    filters = reshape(transpose(W, (1, 0, 2, 3)), (in_channels * multiplier, 1, kh, kw))
    return convolution_2d(x, filters, b, stride, pad, groups=in_channels)
