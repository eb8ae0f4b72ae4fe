"""``pad``: pads an array with ``numpy.pad``/``cupy.pad``, differentiably.

Layer 5: imports backend, utils, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check

# Modes whose padding only copies input elements: their gradient gathers copies back exactly.
_COPY_MODES = ("edge", "reflect", "symmetric", "wrap")


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
        copies = self.mode in _COPY_MODES and self.keywords.get("reflect_type", "even") == "even"
        return _PadGrad(_widths(self.pad_width, len(self._in_shape)), self._in_shape,
                        self.mode if copies else "constant").apply(grad_outputs)


class _PadGrad(FunctionNode):
    """Gradient of Pad: the central part, plus (for copying modes) the padded copies.

    ``mode`` is ``'constant'`` (only the central part is an input element) or a copying mode.
    The gradient of any other mode (``'linear_ramp'``, ``'mean'``, ...) is taken as the
    central part only.

    Compat: Chainer takes only the central part for every mode; for copying modes the
    copies' gradients are added here as well, which is the exact gradient.
    """

    def __init__(self, widths: numpy.ndarray, in_shape: tuple[int, ...], mode: str) -> None:
        self.widths = widths
        self.in_shape = in_shape
        self.mode = mode

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        if self.mode == "constant":
            center = tuple(slice(int(before), int(before) + size)
                           for (before, _), size in zip(self.widths, self.in_shape))
            return utils.force_array(gy[center]).copy(),
        # Pad the element indices the same way: each output entry names its source element.
        size = utils.size_of_shape(self.in_shape)
        index = xp.arange(size).reshape(self.in_shape)
        source = xp.pad(index, self._width_list(), mode=self.mode)
        gx = xp.bincount(source.ravel(), weights=gy.ravel(), minlength=size)
        return utils.force_array(gx.astype(gy.dtype).reshape(self.in_shape)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # The adjoint of gathering is padding again; of the central part, padding with zeros.
        return Pad(self._width_list(), self.mode).apply(grad_outputs)

    def _width_list(self) -> Any:
        # A 0-d input has no axes: ``[]`` reads as float widths to numpy.pad, 0 pads nothing.
        return self.widths.tolist() or 0


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
    """
    y, = Pad(pad_width, mode, **keywords).apply((x,))
    return y
