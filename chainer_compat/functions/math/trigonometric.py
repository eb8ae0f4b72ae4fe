"""Differentiable trigonometric functions: ``sin``, ``cos``, ``tan``, ``arcsin``, ``arccos``,
``arctan`` and ``arctan2``.

Layer 5: imports the core, sum_to and the shared math helpers. As in Chainer, sin, cos and the
inverse functions apply one gradient node each (``SinGrad``, ...), whose own backward is again
written with these functions, so gradients of any order exist.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math._common import FloatUnary
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
        return SinGrad().apply((x, grad_outputs[0]))


class Cos(_ElementwiseUfunc):
    """Elementwise cosine."""

    _label = "cos"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return CosGrad().apply((x, grad_outputs[0]))


class _ElementwiseGrad(FunctionNode):
    """From ``(x, gy)``: ``gy`` times the derivative of an elementwise function at ``x``,
    computed as Chainer's node for it does; ``_derivative`` gives that factor."""

    def _derivative(self, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _derivative(x)")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        gx = utils.force_array(self._derivative(x))
        gx *= gy
        return gx,


class SinGrad(_ElementwiseGrad):
    """``cos(x) * gy``: the gradient of :class:`Sin`."""

    def _derivative(self, x: Any) -> Any:
        return backend.get_array_module(x).cos(x)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        grads = []
        if 0 in indexes:
            grads.append(-sin(x) * gy * grad_outputs[0])
        if 1 in indexes:
            grads.append(cos(x) * grad_outputs[0])
        return tuple(grads)


class CosGrad(_ElementwiseGrad):
    """``-sin(x) * gy``: the gradient of :class:`Cos`."""

    def _derivative(self, x: Any) -> Any:
        derivative = utils.force_array(backend.get_array_module(x).sin(x))
        return -derivative

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        grads = []
        if 0 in indexes:
            grads.append(-cos(x) * gy * grad_outputs[0])
        if 1 in indexes:
            grads.append(-sin(x) * grad_outputs[0])
        return tuple(grads)


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
        return ArcsinGrad().apply((x, grad_outputs[0]))


class ArcsinGrad(_ElementwiseGrad):
    """``gy / sqrt(1 - x**2)``: the gradient of :class:`Arcsin`."""

    def _derivative(self, x: Any) -> Any:
        xp = backend.get_array_module(x)
        derivative = utils.force_array(xp.square(x))
        xp.negative(derivative, out=derivative)
        derivative += 1
        xp.sqrt(derivative, out=derivative)
        return xp.reciprocal(derivative, out=derivative)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        grads = []
        if 0 in indexes:
            grads.append(grad_outputs[0] * gy * x / ((1 - x ** 2) ** 1.5))
        if 1 in indexes:
            grads.append(ArcsinGrad().apply((x, grad_outputs[0]))[0])
        return tuple(grads)


class Arccos(_ElementwiseUfunc):
    """Elementwise inverse cosine."""

    _label = "arccos"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return ArccosGrad().apply((x, grad_outputs[0]))


class ArccosGrad(ArcsinGrad):
    """``-gy / sqrt(1 - x**2)``: the gradient of :class:`Arccos`."""

    def _derivative(self, x: Any) -> Any:
        derivative = super()._derivative(x)
        return backend.get_array_module(x).negative(derivative, out=derivative)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        grads = []
        if 0 in indexes:
            grads.append(-grad_outputs[0] * (gy * x) / ((1 - x ** 2) ** 1.5))
        if 1 in indexes:
            grads.append(ArccosGrad().apply((x, grad_outputs[0]))[0])
        return tuple(grads)


class Arctan(_ElementwiseUfunc):
    """Elementwise inverse tangent."""

    _label = "arctan"

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return ArctanGrad().apply((x, grad_outputs[0]))


class ArctanGrad(_ElementwiseGrad):
    """``gy / (1 + x**2)``: the gradient of :class:`Arctan`."""

    def _derivative(self, x: Any) -> Any:
        xp = backend.get_array_module(x)
        derivative = utils.force_array(xp.square(x))
        derivative += 1
        return xp.reciprocal(derivative, out=derivative)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        x_squared = square(x)
        grads = []
        if 0 in indexes:
            grads.append(-2 * gy * x * grad_outputs[0]
                         / (square(x_squared) + 2 * x_squared + 1))
        if 1 in indexes:
            grads.append(grad_outputs[0] / (x_squared + 1))
        return tuple(grads)


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
        grads = Arctan2Grad().apply((x1, x2, grad_outputs[0]))
        return tuple(grads[index] for index in indexes)


class Arctan2Grad(FunctionNode):
    """From ``(x1, x2, gy)``: the gradients of :class:`Arctan2` for ``x1`` and ``x2``.

    Compat: summed to each input's shape, so broadcast inputs work (Chainer's fail here).
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x1, x2, gy = inputs
        squared_norm = x1 ** 2 + x2 ** 2
        gx1 = utils.force_array(x2 / squared_norm * gy)
        gx2 = utils.force_array(-x1 / squared_norm * gy)
        return (utils.force_array(utils.sum_to(gx1, x1.shape)),
                utils.force_array(utils.sum_to(gx2, x2.shape)))

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x1, x2, gy = self.get_retained_inputs()
        ggx1, ggx2 = grad_outputs
        x1_squared = x1 ** 2
        x2_squared = x2 ** 2
        squared_norm = x1_squared + x2_squared
        # A gradient that is not differentiated again (None) contributes nothing.
        grads = []
        if 0 in indexes:
            terms = [] if ggx1 is None else [-ggx1 * 2 * x1 * x2]
            if ggx2 is not None:
                terms.append(ggx2 * (x1_squared - x2_squared))
            grads.append(sum_to(_total(terms) * gy / squared_norm ** 2, x1.shape))
        if 1 in indexes:
            terms = [] if ggx1 is None else [ggx1 * (x1_squared - x2_squared)]
            if ggx2 is not None:
                terms.append(ggx2 * (2 * x1 * x2))
            grads.append(sum_to(_total(terms) * gy / squared_norm ** 2, x2.shape))
        if 2 in indexes:
            if ggx2 is None:
                numerator = ggx1 * x2
            elif ggx1 is None:
                numerator = -(ggx2 * x1)
            else:
                numerator = ggx1 * x2 - ggx2 * x1
            grads.append(numerator / squared_norm)
        return tuple(grads)


def _total(terms: list[Any]) -> Any:
    """The sum of one or two Variables, in order."""
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


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
