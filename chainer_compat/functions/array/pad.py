"""``pad``: pads an array with ``numpy.pad``/``cupy.pad``, differentiably.

Layer 5: imports backend, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


def _widths(pad_width: Any, ndim: int) -> numpy.ndarray:
    """Returns ``pad_width`` as an ``(ndim, 2)`` array of (before, after) counts."""
    return numpy.broadcast_to(numpy.asarray(pad_width, dtype=numpy.int64), (ndim, 2))


class Pad(FunctionNode):
    """Pads its input with ``xp.pad(x, pad_width, mode, **keywords)``."""

    def __init__(self, pad_width: Any, mode: Any, **keywords: Any) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords
        # compat: Chainer's attribute, which exporters (onnx-chainer) read: the widths as an
        # array, a lone width doubled into (before, after).
        self.pad_bw = numpy.asarray(pad_width)
        if self.pad_bw.size == 1:
            self.pad_bw = numpy.repeat(self.pad_bw, 2)

    def check_type_forward(self, in_types: Any) -> None:
        # numpy.pad itself rejects bad widths, modes and keywords; only the input is checked.
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.pad(x, self.pad_width, mode=self.mode, **self.keywords),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # compat: Chainer's gradient, the central part of gy whatever the mode. For the modes
        # that copy input elements into the border (edge, reflect, symmetric, wrap) the exact
        # gradient would add the copies' gradients too; Chainer's is kept so that models
        # padded that way (CycleGAN's reflect padding) train as they did on Chainer.
        gy, = grad_outputs
        widths = _widths(self.pad_width, len(self._in_shape))
        center = tuple(slice(int(before), int(before) + size)
                       for (before, _), size in zip(widths, self._in_shape))
        return gy[center],


def pad(x: Any, pad_width: Any, mode: Any, **keywords: Any) -> variable.Variable:
    """Pads ``x`` with ``numpy.pad`` (``cupy.pad`` on GPU).

    Args:
        x: Input Variable or array of floats.
        pad_width: Padding per axis, as ``numpy.pad`` takes: an int, ``(before, after)``,
            or one such pair per axis.
        mode: The padding mode, as ``numpy.pad`` takes (``'constant'``, ``'edge'``,
            ``'reflect'``, ...).
        **keywords: Passed on to ``numpy.pad``, such as ``constant_values``.

    Returns:
        The padded Variable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``x`` is not a float array.

    Compat:
        As in Chainer, the gradient of ``x`` is the central part of the output's gradient in
        every mode: for the modes that copy input elements into the border (``'edge'``,
        ``'reflect'``, ``'symmetric'``, ``'wrap'``) the copies' gradients are not added back.
    """
    y, = Pad(pad_width, mode, **keywords).apply((x,))
    return y
