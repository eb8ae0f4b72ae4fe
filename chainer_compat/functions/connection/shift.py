"""``shift``: moves each group of channels by one offset of a ``ksize`` window, a zero-FLOP
replacement for a spatial convolution.

Layer 5: imports backend, variable, function_node, type_check and utils.conv.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import ZeroDivisionValueError
from chainer_compat.utils.conv import _check_sizes, _size_tuple


def _group_offsets(kh: int, kw: int) -> list[tuple[int, int]]:
    """The ``(dy, dx)`` window offset of each channel group, in group order.

    The groups take the window positions in row-major order, except that the centre position
    (no shift) is swapped with the last one, so that the leftover channels (which join the
    last group) stay in place.
    """
    count = kh * kw
    centre = (count - 1) // 2
    offsets = []
    for group in range(count):
        position = count - 1 if group == centre else centre if group == count - 1 else group
        offsets.append((position // kw - kh // 2, position % kw - kw // 2))
    return offsets


class Shift(FunctionNode):
    """Channel-group shift. Use :func:`shift`.

    Args:
        ksize: Window size (odd), an int or a pair.
        dilate: Step between window positions, an int or a pair (negative reverses the
            shifts, which is the gradient).

    Raises:
        ValueError: If a window side is even or negative, or ``dilate`` has a zero.
        TypeError: If ``ksize`` or ``dilate`` is not an int or a pair of ints.
    """

    def __init__(self, ksize: Any = 3, dilate: Any = 1) -> None:
        self.kh, self.kw = _size_tuple(ksize, 2, "ksize")
        # compat: Chainer's wording.
        if self.kh % 2 != 1:
            raise ValueError("kh must be odd")
        if self.kw % 2 != 1:
            raise ValueError("kw must be odd")
        # An odd negative side passes the check above; Chainer fails on it with a ValueError.
        _check_sizes("ksize of shift", (self.kh, self.kw), ksize, negative_error=ValueError)
        self.dy, self.dx = _size_tuple(dilate, 2, "dilate")
        # A negative dilation reverses the shifts (the gradient's); a zero one Chainer divides by.
        if self.dy == 0 or self.dx == 0:
            raise ZeroDivisionValueError(
                f"dilate of shift must not be zero, got {dilate!r}: pass 1 for adjacent "
                "window positions")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            x_type.shape[1] >= self.kh * self.kw,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        _, channels, height, width = x.shape
        offsets = _group_offsets(self.kh, self.kw)
        group_size = channels // len(offsets)
        y = xp.zeros_like(x)
        for group, (oy, ox) in enumerate(offsets):
            start = group * group_size
            stop = channels if group == len(offsets) - 1 else start + group_size
            # y[..., r, c] = x[..., r - oy * dy, c - ox * dx], zero where that is outside.
            sy, sx = oy * self.dy, ox * self.dx
            if abs(sy) >= height or abs(sx) >= width:
                continue
            y[:, start:stop, max(sy, 0):height + min(sy, 0), max(sx, 0):width + min(sx, 0)] = \
                x[:, start:stop, max(-sy, 0):height + min(-sy, 0),
                  max(-sx, 0):width + min(-sx, 0)]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The adjoint of a shift is the opposite shift.
        return Shift((self.kh, self.kw), (-self.dy, -self.dx)).apply(grad_outputs)


def shift(x: Any, ksize: Any = 3, dilate: Any = 1) -> variable.Variable:
    """Shifts channel groups of ``x`` spatially, one group per position of a ``ksize``
    window (the centre position, no shift, last), filling with zeros.

    The channels split into ``kh * kw`` groups of ``c // (kh * kw)`` (the last group also takes
    the remainder); group ``g`` is moved by ``(ky * dy, kx * dx)`` for its window position.

    Args:
        x: Float input of shape ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize: Window size: an odd int or a pair of odd ints.
        dilate: Step between window positions: an int or a pair.

    Returns:
        A Variable of ``x``'s shape.

    Raises:
        ValueError: If a window side is even or negative, a size argument has more than two
            entries, or ``dilate`` has a zero (also a ZeroDivisionError, which Chainer raises).
        TypeError: If ``ksize`` or ``dilate`` is not an int or a pair of ints.
        chainer_compat.utils.type_check.InvalidType: On a wrong dtype, rank or too few
            channels.

    See: `Shift: A Zero FLOP, Zero Parameter Alternative to Spatial Convolutions
    <https://arxiv.org/abs/1711.08141>`_
    """
    return Shift(ksize, dilate).apply((x,))[0]
