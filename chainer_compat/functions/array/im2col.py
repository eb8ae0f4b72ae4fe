"""``im2col``: gathers the convolution windows of each image into channels, and its gradient
(``col2im``, the sum of the windows back into the image).

Layer 5: imports variable, function_node, type_check and utils.conv.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import conv, type_check


class Im2Col(FunctionNode):
    """Gathers convolution windows. Use :func:`im2col`."""

    def __init__(self, ksize: Any, stride: Any, pad: Any, cover_all: bool, dilate: Any
                 ) -> None:
        self.kh, self.kw = conv._size_tuple(ksize, 2, "ksize")
        self.sy, self.sx = conv._size_tuple(stride, 2, "stride")
        self.ph, self.pw = conv._size_tuple(pad, 2, "pad")
        self.dy, self.dx = conv._size_tuple(dilate, 2, "dilate")
        self.cover_all = cover_all

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._input_shape = x.shape
        col = conv.im2col(x, self.kh, self.kw, self.sy, self.sx, self.ph, self.pw,
                          cover_all=self.cover_all, dy=self.dy, dx=self.dx)
        n, c, kh, kw, out_h, out_w = col.shape
        return col.reshape(n, c * kh * kw, out_h, out_w),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Im2ColGrad(self, self._input_shape).apply(grad_outputs)


class Im2ColGrad(FunctionNode):
    """Sums windows back into images: the gradient of :class:`Im2Col`, whose own gradient is
    :class:`Im2Col` again."""

    def __init__(self, forward_node: Im2Col, input_shape: tuple[int, ...]) -> None:
        self.forward_node = forward_node
        self.input_shape = input_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        node = self.forward_node
        n, c, h, w = self.input_shape
        col = gy.reshape(n, c, node.kh, node.kw, gy.shape[2], gy.shape[3])
        gx = conv.col2im(col, node.sy, node.sx, node.ph, node.pw, h, w, node.dy, node.dx)
        return gx.astype(gy.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        node = self.forward_node
        return Im2Col((node.kh, node.kw), (node.sy, node.sx), (node.ph, node.pw),
                      node.cover_all, (node.dy, node.dx)).apply(grad_outputs)


def im2col(x: Any, ksize: Any, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
           dilate: Any = 1) -> variable.Variable:
    """Extracts the convolution windows of ``x`` into the channel axis.

    Entry ``y[n, (c * kh + i) * kw + j, oy, ox]`` is
    ``x[n, c, oy * sy + i * dy - ph, ox * sx + j * dx - pw]`` (zero in the padding).

    Args:
        x: Float input of shape ``(n, c, h, w)``.
        ksize: Window size: an int ``k`` (meaning ``(k, k)``) or a pair.
        stride: Step between windows: an int or a pair.
        pad: Zero padding on each side: an int or a pair.
        cover_all: Add a last window overhanging the end where needed so that every entry is
            in some window.
        dilate: Spacing between window entries: an int or a pair.

    Returns:
        A Variable of shape ``(n, c * kh * kw, out_h, out_w)``.

    Raises:
        TypeError: If a size argument is not an int or a pair of ints.
        ValueError: If a size argument has more than two entries, a stride is not positive
            or a dilation is negative (a zero stride is also a ZeroDivisionError and a
            negative one an AssertionError, which Chainer raises).
        RuntimeError: If the output would be empty (also an AssertionError, as in Chainer).
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a 4-d float array.
    """
    return Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))[0]
