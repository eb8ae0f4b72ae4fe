"""Differentiable trigonometric functions: ``sin``, ``cos``, ``tan``, ``arcsin``, ``arccos``,
``arctan`` and ``arctan2``.

Layer 5: imports the core, sum_to and the shared math helpers. Each backward is written with
these same functions, so gradients of any order exist.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math._common import FloatUnary
from chainer_compat.functions.math.sqrt import rsqrt
from chainer_compat.functions.math.square import square
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check


class _ElementwiseUfunc(FloatUnary):
    """Applies the array module's ufunc named ``_label`` and keeps ``x`` for backward."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(getattr(xp, self._label)(x)),


class Sin(_ElementwiseUfunc):
    """Elementwise sine."""

    _label = "sin"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cos(x),


class Cos(_ElementwiseUfunc):
    """Elementwise cosine."""

    _label = "cos"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return -(grad_outputs[0] * sin(x)),


class Tan(_ElementwiseUfunc):
    """Elementwise tangent."""

    _label = "tan"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / square(cos(x)),


class Arcsin(_ElementwiseUfunc):
    """Elementwise inverse sine."""

    _label = "arcsin"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * rsqrt(1.0 - square(x)),


class Arccos(_ElementwiseUfunc):
    """Elementwise inverse cosine."""

    _label = "arccos"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return -(grad_outputs[0] * rsqrt(1.0 - square(x))),


class Arctan(_ElementwiseUfunc):
    """Elementwise inverse tangent."""

    _label = "arctan"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (square(x) + 1.0),


class Arctan2(FunctionNode):
    """Elementwise ``arctan(x1 / x2)`` in the quadrant of ``(x2, x1)``, with broadcasting."""

    @property
    def label(self) -> str:
        return "arctan2"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x1", "x2"))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[1].dtype.kind == "f")
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1, x2)
        return utils.force_array(xp.arctan2(x1, x2)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        scaled = grad_outputs[0] / (square(x1) + square(x2))
        grads = []
        if 0 in indexes:
            grads.append(sum_to(scaled * x2, x1.shape))
        if 1 in indexes:
            grads.append(sum_to(-(scaled * x1), x2.shape))
        return tuple(grads)


def sin(x: Any) -> variable.Variable:
    """Elementwise sine.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Sin().apply((x,))
    return y


def cos(x: Any) -> variable.Variable:
    """Elementwise cosine.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Cos().apply((x,))
    return y


def tan(x: Any) -> variable.Variable:
    """Elementwise tangent.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Tan().apply((x,))
    return y


def arcsin(x: Any) -> variable.Variable:
    """Elementwise inverse sine (NaN outside ``[-1, 1]``).

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Arcsin().apply((x,))
    return y


def arccos(x: Any) -> variable.Variable:
    """Elementwise inverse cosine (NaN outside ``[-1, 1]``).

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Arccos().apply((x,))
    return y


def arctan(x: Any) -> variable.Variable:
    """Elementwise inverse tangent.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Arctan().apply((x,))
    return y


def arctan2(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise angle of the point ``(x2, x1)``, in ``[-pi, pi]``.

    Args:
        x1: Y coordinates (float Variable or array).
        x2: X coordinates (float Variable or array), broadcastable with ``x1``.

    Returns:
        The output Variable.
    """
    y, = Arctan2().apply((x1, x2))
    return y
