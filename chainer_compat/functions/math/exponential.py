"""``exp``, ``log``, ``log2``, ``log10``: differentiable exponentials and logarithms.

Layer 5: imports the core and the shared math helpers.
"""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary


class Exp(FloatUnary):
    """Elementwise ``e ** x``; backward reuses the output."""

    _label = "exp"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(backend.get_array_module(x).exp(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return y * grad_outputs[0],  # compat: Chainer's operand order, which hooks see


def exp(x: Any) -> variable.Variable:
    """Elementwise exponential function, ``y = e ** x``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Exp().apply((x,))
    return y


class _Logarithm(FloatUnary):
    """``log(x) / log(base)``; ``_scale`` is ``1 / log(base)``."""

    _scale = 1.0

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(getattr(xp, self._label)(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        if self._scale == 1.0:
            return grad_outputs[0] / x,
        # compat: divided by x, then scaled, as Chainer rounds it.
        return grad_outputs[0] / x * self._scale,


class Log(_Logarithm):
    """Elementwise natural logarithm."""

    _label = "log"


class Log2(_Logarithm):
    """Elementwise base-2 logarithm."""

    _label = "log2"
    _scale = 1.0 / math.log(2.0)


class Log10(_Logarithm):
    """Elementwise base-10 logarithm."""

    _label = "log10"
    _scale = 1.0 / math.log(10.0)


def log(x: Any) -> variable.Variable:
    """Elementwise natural logarithm, ``y = ln x``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Log().apply((x,))
    return y


def log2(x: Any) -> variable.Variable:
    """Elementwise base-2 logarithm, ``y = log2 x``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Log2().apply((x,))
    return y


def log10(x: Any) -> variable.Variable:
    """Elementwise base-10 logarithm, ``y = log10 x``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Log10().apply((x,))
    return y
