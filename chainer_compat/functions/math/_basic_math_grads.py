"""Chainer's gradient nodes of the arithmetic operators, as standalone FunctionNodes:
``AbsoluteGrad``, ``DivGrad``, ``DivFromConstantGrad``, ``PowVarVarGrad``, ``PowVarConstGrad``
and ``PowConstVarGrad``. ``basic_math`` re-exports them under Chainer's module path.

Layer 5: imports the core, ``sum_to`` and ``log``. The operators' backwards apply them where
hooks or double backprop can see them (NOTE [gradient nodes of the operators] in basic_math).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy

from chainer_compat import backend, utils
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.exponential import log
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check
from chainer_compat.utils._numpy_scalars import numpy1_constant


def _constant_like(x: Any, value: Any) -> Any:
    """``value`` in ``x``'s dtype (a scalar becomes a scalar of that dtype)."""
    if numpy.isscalar(value):
        return numpy.dtype(x.dtype).type(value)
    return value.astype(x.dtype, copy=False)


def sum_of_terms(*terms: Any) -> Any:
    """The sum of the terms that are not None, left to right, or None when all are (a
    gradient's terms, some of which may be missing)."""
    present = [term for term in terms if term is not None]
    if not present:
        return None
    total = present[0]
    for term in present[1:]:
        total = total + term
    return total


def _check_same_float_dtype(in_types: Any, names: tuple[str, ...]) -> None:
    type_check._argname(in_types, names)
    type_check.expect(in_types[0].dtype.kind == "f")
    for other in in_types[1:]:
        type_check.expect(in_types[0].dtype == other.dtype)


# NOTE [gradient arrays of the operators]
# NumPy computes ``a * b`` in the buffer of ``a`` when ``a`` is a temporary that nothing else
# holds and of at least 256 KiB (its "temporary elision"), so the result keeps a's memory
# layout rather than the one NumPy picks for the pair. Chainer's gradient nodes below work on
# arrays, so their results take those layouts, and a later sum over a result (a convolution's
# bias gradient) adds in memory order, so its bits depend on them. The functions below are
# those nodes' array expressions, written once: the nodes' forward and the operators' paths
# without a node (basic_math) both call them, so the layouts match Chainer's either way.
def absolute_grad(x: Any, gy: Any) -> Any:
    """``sign(x) * gy``: the gradient of ``abs`` at ``x``."""
    xp = backend.get_array_module(gy)
    return utils.force_array(xp.sign(x) * gy, gy.dtype)


def div_grads(x0: Any, x1: Any, gy: Any, second: bool = True) -> tuple[Any, Any]:
    """``(gy / x1, -gy / x1 * x0 / x1)`` before summing to the inputs' shapes; the second is
    None unless ``second``."""
    gx0 = utils.force_array(gy / x1)
    return gx0, utils.force_array(-gx0 * x0 / x1) if second else None


def div_from_constant_grad(value: Any, x: Any, gy: Any) -> Any:
    """``-value * gy / x**2``: the gradient of ``value / x``."""
    value = _constant_like(x, value)
    return utils.force_array(-value * gy / (x * x), x.dtype)


def pow_var_var_grads(x0: Any, x1: Any, y: Any, gy: Any,
                      indexes: tuple[int, ...] = (0, 1)) -> list[Any]:
    """The gradients of ``y = x0 ** x1`` for ``indexes``, before summing to the inputs'
    shapes: ``x1 * x0**(x1-1) * gy`` and ``log(x0) * y * gy``."""
    grads = []
    for i in indexes:
        if i == 0:
            grads.append(utils.force_array(x1 * x0 ** (x1 - x1.dtype.type(1)) * gy))
        else:
            xp = backend.get_array_module(x0)
            grads.append(utils.force_array(xp.log(x0) * y * gy))
    return grads


def pow_var_const_grad(value: Any, x: Any, gy: Any) -> Any:
    """``value * x**(value-1) * gy``: the gradient of ``x ** value``."""
    # compat: value - 1 taken before the cast to x's dtype, as Chainer takes it (NOTE [NumPy
    # scalars as constants]).
    exponent = _constant_like(x, numpy1_constant(value) - 1)
    return utils.force_array(_constant_like(x, value) * x ** exponent * gy, x.dtype)


def pow_const_var_grad(value: Any, y: Any, gy: Any) -> Any:
    """``log(value) * y * gy``: the gradient of ``value ** x`` from its output ``y``."""
    return utils.force_array(log_of_constant(value, y) * y * gy, y.dtype)


class _ConstantOperandGrad(FunctionNode):
    """The gradient node of an operator whose other operand is the constant ``value``: it
    keeps ``value`` and works elementwise on its inputs.

    Args:
        value: The constant operand (scalar or array).
    """

    is_elementwise = True

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class AbsoluteGrad(FunctionNode):
    """``gx = sign(x) * gy``: the gradient of ``abs`` at a fixed array ``x``.

    Args:
        x: The input array of ``abs`` (a constant of this node).
    """

    is_elementwise = True

    def __init__(self, x: Any) -> None:
        super().__init__()
        self.x = x

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("gy",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return absolute_grad(self.x, inputs[0]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # Linear in gy: the same node maps the gradient back.
        return tuple(AbsoluteGrad(self.x).apply(grad_outputs))


class DivGrad(FunctionNode):
    """``(gy / x1, -gy * x0 / x1**2)``, each summed to its input's shape: gradient of ``x0 / x1``.

    Inputs are ``(x0, x1, gy)``.

    Args:
        is_elementwise: Whether ``x0`` and ``x1`` have one shape (kept as Chainer's attribute).
    """

    def __init__(self, is_elementwise: bool) -> None:
        super().__init__()
        self.is_elementwise = is_elementwise

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_float_dtype(in_types, ("x0", "x1", "gy"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, gy = inputs
        gx0, gx1 = div_grads(x0, x1, gy)
        return utils.sum_to(gx0, x0.shape), utils.sum_to(gx1, x1.shape)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x0, x1, gy = self.get_retained_inputs()
        ggx0, ggx1 = grad_outputs
        x1_square = x1 * x1
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(None if ggx1 is None else sum_to(-ggx1 * gy / x1_square, x0.shape))
        if 1 in indexes:
            term0 = None if ggx0 is None else -ggx0 * gy / x1_square
            term1 = None if ggx1 is None else 2 * ggx1 * gy * x0 / (x1_square * x1)
            total = sum_of_terms(term0, term1)
            grads.append(None if total is None else sum_to(total, x1.shape))
        if 2 in indexes:
            # compat: Chainer subtracts the ggx1 term (one ``_ - _`` node) rather than adding
            # its negation; hooks and graphs see those nodes, and the values are the same.
            term0 = None if ggx0 is None else ggx0 / x1
            term1 = None if ggx1 is None else ggx1 * x0 / x1_square
            if term1 is None:
                grads.append(term0)
            elif term0 is None:
                grads.append(-term1)
            else:
                grads.append(term0 - term1)
        return tuple(grads)


class DivFromConstantGrad(_ConstantOperandGrad):
    """``gx = -value * gy / x**2``: the gradient of ``value / x``; inputs are ``(x, gy)``.

    Args:
        value: The constant numerator (scalar or array).
    """

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_float_dtype(in_types, ("x", "gy"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return div_from_constant_grad(self.value, x, gy),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        value = _constant_like(x, self.value)
        # Chainer's expressions in Chainer's order (x ** 3 is NumPy's power, not x * x * x),
        # so the second-order gradients round alike.
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(ggx * 2 * value * gy / (x ** 3))
        if 1 in indexes:
            grads.append(ggx * -value / (x ** 2))
        return tuple(grads)


class PowVarVarGrad(FunctionNode):
    """The gradient of ``x0 ** x1``: ``(x1 * x0**(x1-1) * gy, log(x0) * y * gy)``, summed to
    each input's shape. Inputs are ``(x0, x1, gy)``.

    Args:
        is_elementwise: Whether ``x0`` and ``x1`` have one shape (kept as Chainer's attribute).
        y: The forward output ``x0 ** x1`` (an array).
    """

    def __init__(self, is_elementwise: bool, y: Any) -> None:
        super().__init__()
        self.is_elementwise = is_elementwise
        self.y = y

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_float_dtype(in_types, ("lhs", "rhs", "gy"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, gy = inputs
        gx0, gx1 = pow_var_var_grads(x0, x1, self.y, gy)
        return utils.sum_to(gx0, x0.shape), utils.sum_to(gx1, x1.shape)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x0, x1, gy = self.get_retained_inputs()
        ggx0, ggx1 = grad_outputs
        # compat: Chainer's expressions, in Chainer's order and grouping (a missing ggx counts
        # as the number 0, as there), so the third-order values round alike and hooks see the
        # same nodes.
        log_x0 = log(x0)
        power = x0 ** x1
        power_less_one = x0 ** (x1 - 1)
        power_less_two = x0 ** (x1 - 2)
        grads: list[Any] = []
        if 0 in indexes:
            term0 = 0 if ggx0 is None else ggx0 * x1 * (x1 - 1) * power_less_two
            term1 = 0 if ggx1 is None else ggx1 * power_less_one * (log_x0 * x1 + 1)
            grads.append(sum_to((term0 + term1) * gy, x0.shape))
        if 1 in indexes:
            term0 = 0 if ggx0 is None else ggx0 * power_less_one * (log_x0 * x1 + 1)
            term1 = 0 if ggx1 is None else ggx1 * log_x0 * log_x0 * power
            grads.append(sum_to((term0 + term1) * gy, x1.shape))
        if 2 in indexes:
            term0 = 0 if ggx0 is None else ggx0 * x1 * power_less_one
            term1 = 0 if ggx1 is None else ggx1 * log_x0 * power
            grads.append(term0 + term1)
        return tuple(grads)


class PowVarConstGrad(_ConstantOperandGrad):
    """``gx = value * x**(value-1) * gy``: the gradient of ``x ** value``; inputs ``(x, gy)``.

    Args:
        value: The constant exponent (scalar or array).
    """

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_float_dtype(in_types, ("x", "gy"))
        type_check.expect(in_types[0].shape == in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return pow_var_const_grad(self.value, x, gy),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        value = _constant_like(x, self.value)
        # Chainer's expressions in Chainer's order, with value - 1 and value - 2 taken before
        # the cast to x's dtype (NOTE [NumPy scalars as constants]), so the second-order
        # gradients round alike.
        value_less_one = _constant_like(x, numpy1_constant(self.value) - 1)
        grads: list[Any] = []
        if 0 in indexes:
            value_less_two = _constant_like(x, numpy1_constant(self.value) - 2)
            grads.append(ggx * value * gy * value_less_one * x ** value_less_two)
        if 1 in indexes:
            grads.append(ggx * value * x ** value_less_one)
        return tuple(grads)


def log_of_constant(value: Any, y: Any) -> Any:
    """``log(value)`` in ``y``'s dtype: the factor of ``value ** x``'s gradient."""
    if numpy.isscalar(value):
        # compat: log of the constant in Python's precision, then cast, as Chainer does.
        return numpy.dtype(y.dtype).type(math.log(cast(float, value)))
    xp = backend.get_array_module(y)
    return utils.force_array(xp.log(_constant_like(y, value)), y.dtype)


class PowConstVarGrad(_ConstantOperandGrad):
    """``gx = log(value) * y * gy``: the gradient of ``value ** x`` from its output ``y``;
    inputs are ``(y, gy)``.

    Args:
        value: The constant base (scalar or array, positive).
    """

    def check_type_forward(self, in_types: Any) -> None:
        _check_same_float_dtype(in_types, ("y", "gy"))
        type_check.expect(in_types[0].shape == in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return pow_const_var_grad(self.value, y, gy),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        # log(value) times ggx first, shared, as Chainer forms it, so the second-order
        # gradients round alike.
        scaled = log_of_constant(self.value, y.array) * ggx
        grads: list[Any] = []
        if 0 in indexes:
            grads.append(scaled * gy)
        if 1 in indexes:
            grads.append(scaled * y)
        return tuple(grads)
