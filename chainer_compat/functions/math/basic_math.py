"""The arithmetic behind Variable's operators: ``+ - * / ** @``, negation and ``abs``.

Layer 5. Binds itself into ``chainer_compat.variable`` (NOTE [late binding]). Dtype rule, as in
Chainer: a constant (scalar or array) takes the Variable's dtype, whatever NumPy 2's promotion
rules would say; two Variables must share one dtype and broadcast against each other.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Any

import numpy

from chainer_compat import backend, utils
from chainer_compat import variable as _variable_module
from chainer_compat.configuration import thread_flags as _thread_flags
from chainer_compat.function_node import FunctionNode

# Variable.__getitem__/reshape/transpose reach these through this module (_ops): see NOTE
# [late binding] in variable.py.
from chainer_compat.functions.array.get_item import get_item  # noqa: F401
from chainer_compat.functions.array.reshape import reshape  # noqa: F401
from chainer_compat.functions.array.transpose import transpose  # noqa: F401

# compat: Chainer's separate gradient nodes, at its path; abs, / and ** apply them (NOTE
# [gradient nodes of the operators]).
from chainer_compat.functions.math._basic_math_grads import (  # noqa: F401
    AbsoluteGrad,
    DivFromConstantGrad,
    DivGrad,
    PowConstVarGrad,
    PowVarConstGrad,
    PowVarVarGrad,
    absolute_grad,
    div_from_constant_grad,
    div_grads,
    log_of_constant,
    pow_const_var_grad,
    pow_var_const_grad,
    pow_var_var_grads,
)
from chainer_compat.functions.math.floor import floor as _floor
from chainer_compat.functions.math.matmul import matmul as _matmul
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check
from chainer_compat.utils._numpy_scalars import numpy1_constant
from chainer_compat.variable import Variable, _new_unlinked_variable

_ndarray = numpy.ndarray
_new = object.__new__


# Python and NumPy scalars: the operands that become a constant of the Variable's dtype.
# NumPy's comes first: isinstance tries the entries in order, and a NumPy scalar (the commonest
# constant in a backward) failing the other three first costs 80 ns instead of 25.
_SCALARS = (numpy.generic, float, int, complex)


# NOTE [operators without a node]
# Inside a backward without double backprop (enable_backprop off), an operator's result gets no
# creator, so its node would exist only to be thrown away. When nothing could observe it (no
# hook, debug off) and the operands are NumPy arrays of one shape and dtype, the operators below
# compute the array directly and wrap it as apply would (requires_grad from the inputs). Any
# other case goes through the FunctionNode, which remains the reference behaviour. CuPy
# operands qualify too when they live on the current device (apply's one other duty there is
# to make their device current): a CuPy node costs the host more than a NumPy one.
def _direct(x: Variable, other: Variable | None = None) -> bool:
    """Whether an operator on ``x`` (and ``other``) may skip its node: see the NOTE above."""
    flags = _thread_flags.flags
    if flags.enable_backprop or flags.hooks or flags.debug:
        return False
    a = x._array
    if type(a) is not _ndarray:
        return _direct_on_cupy(a, None if other is None else other._array)
    if other is None:
        return True
    b = other._array
    return type(b) is _ndarray and a.dtype is b.dtype and a.shape == b.shape


def _direct_on_cupy(a: Any, b: Any) -> bool:
    """_direct's condition for arrays that are not NumPy's: CuPy, on the current device."""
    if not backend.is_cupy_array(a):
        return False
    device = a.device.id
    if device != backend.current_cuda_device_id():
        return False
    return b is None or (type(b) is type(a) and b.device.id == device and a.dtype is b.dtype
                         and a.shape == b.shape)


def _wrap(y: Any, x: Variable, other: Variable | None = None) -> Variable:
    if type(y) is not _ndarray and type(y) is not type(x._array):  # a NumPy scalar
        y = numpy.asarray(y, x._array.dtype)
    requires_grad = x._node._requires_grad or (
        other is not None and other._node._requires_grad)
    return _new_unlinked_variable(y, requires_grad)


def _preprocess_const(x: Variable, value: Any) -> Any:
    """Casts a scalar constant to ``x``'s dtype (compat: Chainer's rule, not NumPy 2's)."""
    scalar_type = x._array.dtype.type
    return value if type(value) is scalar_type else _cast_constant(value, scalar_type)[2]


# NOTE [constants cast once]
# A backward applies the same constant again and again (``gy * 2.0``, ``1 - y * y``), and two
# costs of a small array's operation lie in the constant, not the array: casting a Python number
# to the Variable's NumPy scalar type (about 200 ns), and the ufunc taking a NumPy scalar operand
# (about 170 ns slower than a 0-d array of the same dtype, since it converts the scalar on every
# call). So each constant is cast once and kept with a read-only 0-d array of its cast value:
# the operators that compute without a node use the array (the same ufunc loop on the same
# values: identical bits), and nodes keep the NumPy scalar, as Chainer's do. Entries are found
# by the constant's identity and hold the constant itself, so a later object that reuses its id
# cannot match. Only Python numbers are kept, the constants written in code: a NumPy scalar is
# usually computed afresh on each call (``self.value - 1``), and keeping those would only churn
# the table (one of the Variable's own scalar type needs no cast and is used as it is). The
# table is bounded all the same (cleared when full), for numbers computed at run time.
_constants: dict[int, tuple[Any, Any, Any, Any]] = {}
_negated_constants: dict[int, tuple[Any, Any, Any, Any]] = {}  # x - c is x + (-c)
_reciprocals: dict[int, tuple[Any, Any]] = {}  # x / c is x * (1 / c): c's entry holds 1 / c
_CONSTANTS_KEPT = 256
_PYTHON_NUMBERS = frozenset({float, int, bool})


def _constant_and_operand(value: Any, scalar_type: Any) -> tuple[Any, Any]:
    """A constant cast to ``scalar_type`` (what nodes keep) and the operand the node-free
    operators compute with on NumPy arrays (NOTE [constants cast once])."""
    if type(value) is scalar_type:
        return value, value
    _, _, scalar, operand = _cast_constant(value, scalar_type)
    return scalar, operand


def _cast_constant(value: Any, scalar_type: Any,
                   negated: bool = False) -> tuple[Any, Any, Any, Any]:
    """``(value, scalar_type, scalar, operand)`` for a constant: NOTE [constants cast once].

    ``scalar`` is ``value`` cast to ``scalar_type`` (then negated with ``negated``: ``x - c``
    is ``x + (-c)``, as in Chainer). ``operand`` is a read-only 0-d array of ``scalar`` for a
    Python number met before, and ``scalar`` itself the first time (a number computed afresh
    on each call is met only once, and building its array would cost more than it saves) or
    for a constant not kept.
    """
    table = _negated_constants if negated else _constants
    entry = table.get(id(value))
    if entry is not None and entry[0] is value and entry[1] is scalar_type:
        if entry[3] is not entry[2]:
            return entry
        operand = numpy.array(entry[2])  # met again: worth its 0-d array now
        operand.flags.writeable = False
        entry = (value, scalar_type, entry[2], operand)
        table[id(value)] = entry
        return entry
    scalar = value if type(value) is scalar_type else scalar_type(value)
    if negated:
        scalar = -scalar
    entry = (value, scalar_type, scalar, scalar)
    _keep(table, value, entry)
    return entry


def _keep(table: dict[int, Any], value: Any, entry: Any) -> None:
    """Files ``entry`` under ``value``'s identity if ``value`` is a Python number; the table is
    cleared when full (NOTE [constants cast once])."""
    if type(value) in _PYTHON_NUMBERS:
        if len(table) >= _CONSTANTS_KEPT:
            table.clear()
        table[id(value)] = entry


def _preprocess_rhs(x: Variable, value: Any) -> Any:
    """Returns a Variable operand as is, and an array constant cast to ``x``'s dtype."""
    if isinstance(value, Variable):
        return value
    if isinstance(value, _ndarray) or backend.is_cupy_array(value):
        return value.astype(x._array.dtype, copy=False)
    raise TypeError(
        "Value must be a scalar, `numpy.ndarray`, `cupy.ndarray` or a `Variable`.\n"
        f"Actual: {type(value)}")


def _as_array_result(x: Any, like: Any) -> Any:
    return numpy.asarray(x) if isinstance(x, numpy.generic) else x


class _Binary(FunctionNode):
    """Shared checks of the two-Variable operators: same dtype, broadcastable shapes, and for
    ``*``, ``/`` and ``**`` (``float_only``) a float lhs, as in Chainer."""

    float_only = False

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        a, b = in_data
        if a.dtype == b.dtype and a.shape == b.shape and (
                not self.float_only or a.dtype.kind == "f"):
            return  # the common case, checked without building expressions
        super()._check_data_type_forward(in_data)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("lhs", "rhs"))
        if self.float_only:
            type_check.expect(in_types[0].dtype.kind == "f")
        type_check.expect(in_types[0].dtype == in_types[1].dtype)
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)


class _Unary(FunctionNode):
    """Operators on one Variable. Most define no type check (Chainer's only names the input),
    so apply skips type checking for them altogether."""


class _Constant:
    """The constant of ``x + c``, ``c - x``, ``c * x``, ``c / x``, ``x ** c`` and ``c ** x``.

    ``value`` has the input's dtype and is what the arithmetic uses. ``_written`` is the
    constant as the user wrote it, kept when it differs, for the label: ``x * 2`` is labelled
    ``_ * 2`` as in Chainer, not ``_ * 2.0``. The operators set both without ``__init__``.
    """

    _written: Any = None

    def __init__(self, value: Any, written: Any = None) -> None:
        self.value = value
        if written is not None:
            self._written = written

    @property
    def _shown_value(self) -> Any:
        written = self._written
        return self.value if written is None else written


class _FloatUnary(_Unary):
    """Operators on one Variable that, as in Chainer, take only float arrays:
    ``c / x``, ``x ** c`` and ``c ** x``."""

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        if len(in_data) == 1 and in_data[0].dtype.kind == "f":
            return  # the common case, checked without building expressions
        super()._check_data_type_forward(in_data)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")


# ------------------------------------------------------------------------------------ unary
class Neg(_Unary):
    """``-x``."""

    @property
    def label(self) -> str:
        return "__neg__"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _as_array_result(-inputs[0], inputs[0]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return -grad_outputs[0],


class Absolute(_Unary):
    """``abs(x)``."""

    @property
    def label(self) -> str:
        return "|_|"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(abs(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        gy, = grad_outputs
        if not _direct(gy):  # NOTE [gradient nodes of the operators]
            return AbsoluteGrad(x).apply(grad_outputs)
        return _wrap(absolute_grad(x, gy._array), gy),


# ------------------------------------------------------------------------------------ add
class Add(_Binary):
    """``lhs + rhs`` with broadcasting."""

    @property
    def label(self) -> str:
        return "_ + _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        self._shapes = (a.shape, b.shape)
        return utils.force_array(a + b),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        return tuple([sum_to(gy, self._shapes[i]) for i in indexes])


class AddConstant(_Constant, _Unary):
    """``x + c`` for a constant ``c``."""

    @property
    def label(self) -> str:
        return f"_ + {_constant_label(self._shown_value)}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        y = x + self.value  # value has x's dtype (_preprocess_const)
        return (y if type(y) is _ndarray else utils.force_array(y, x.dtype)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return grad_outputs[0],


class MultiAdd(FunctionNode):
    """Sum of any number of same-shaped inputs (used to add up gradients); labelled with its
    class name, as in Chainer."""

    def check_type_forward(self, in_types: Any) -> None:
        for i, in_type in enumerate(in_types):
            type_check._argname((in_type,), (f"x{i}",))
            type_check.expect(in_types[0].dtype == in_type.dtype)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._shapes = [x.shape for x in inputs]
        total = inputs[0].copy() if isinstance(inputs[0], _ndarray) else inputs[0] + 0
        for x in inputs[1:]:
            if x.shape == total.shape:
                total += x
            else:
                total = total + x
        return utils.force_array(total),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        return tuple([sum_to(gy, self._shapes[i]) for i in indexes])


def add(*xs: Any) -> Variable:
    """Elementwise sum: ``add(a, b)`` is ``a + b``; more arguments are summed in one node."""
    if len(xs) == 2:
        lhs, rhs = xs
        if not isinstance(lhs, Variable):
            lhs, rhs = rhs, lhs
        if isinstance(rhs, _SCALARS):
            array = lhs._array
            value, operand = _constant_and_operand(rhs, array.dtype.type)
            if _direct(lhs):
                return _wrap(array + operand if type(array) is _ndarray else array + value, lhs)
            node = _new(AddConstant)
            node.value = value
            if value is not rhs:
                node._written = rhs
            return node.apply((lhs,))[0]
        if isinstance(rhs, Variable) and _direct(lhs, rhs):
            return _wrap(lhs._array + rhs._array, lhs, rhs)
        return Add().apply((lhs, _preprocess_rhs(lhs, rhs)))[0]
    return MultiAdd().apply(xs)[0]


# ------------------------------------------------------------------------------------ sub
class Sub(_Binary):
    """``lhs - rhs`` with broadcasting."""

    @property
    def label(self) -> str:
        return "_ - _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        self._shapes = (a.shape, b.shape)
        return utils.force_array(a - b),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        grads = []
        for i in indexes:
            g = sum_to(gy, self._shapes[i])
            grads.append(g if i == 0 else -g)
        return tuple(grads)


class SubFromConstant(_Constant, _Unary):
    """``c - x`` for a constant ``c``."""

    @property
    def label(self) -> str:
        return f"{_constant_label(self._shown_value)} - _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return utils.force_array(self.value - x, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return -grad_outputs[0],


def sub(self: Variable, rhs: Any) -> Variable:
    """``self - rhs``."""
    if isinstance(rhs, _SCALARS):
        array = self._array
        _, _, value, operand = _cast_constant(rhs, array.dtype.type, negated=True)
        if _direct(self):
            return _wrap(array + operand if type(array) is _ndarray else array + value, self)
        return AddConstant(value, -typing.cast(Any, rhs)).apply((self,))[0]
    if isinstance(rhs, Variable) and _direct(self, rhs):
        return _wrap(self._array - rhs._array, self, rhs)
    return Sub().apply((self, _preprocess_rhs(self, rhs)))[0]


def rsub(self: Variable, rhs: Any) -> Variable:
    """``rhs - self``."""
    if isinstance(rhs, _SCALARS):
        array = self._array
        value, operand = _constant_and_operand(rhs, array.dtype.type)
        if _direct(self):
            return _wrap(operand - array if type(array) is _ndarray else value - array, self)
        return SubFromConstant(value, rhs).apply((self,))[0]
    return Sub().apply((_preprocess_rhs(self, rhs), self))[0]


# ------------------------------------------------------------------------------------ mul
class Mul(_Binary):
    """``lhs * rhs`` with broadcasting."""

    float_only = True

    @property
    def label(self) -> str:
        return "_ * _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        return utils.force_array(a * b),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        a, b = self.get_retained_inputs()
        grads = []
        for i in indexes:
            other = b if i == 0 else a
            shape = (a if i == 0 else b).shape
            grads.append(sum_to(gy * other, shape))
        return tuple(grads)


class MulConstant(_Constant, _Unary):
    """``c * x`` for a constant ``c``."""

    @property
    def label(self) -> str:
        return f"_ * {_constant_label(self._shown_value)}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        y = x * self.value  # value has x's dtype (_preprocess_const)
        return (y if type(y) is _ndarray else utils.force_array(y, x.dtype)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # compat: the constant as written, as Chainer's node keeps it, so that the gradient's
        # node is labelled alike ('_ * 2', not '_ * 2.0'); it is cast to gy's dtype again,
        # from the cache (NOTE [constants cast once]): the same value.
        return self._shown_value * grad_outputs[0],


def mul(self: Variable, rhs: Any) -> Variable:
    """``self * rhs``."""
    if isinstance(rhs, _SCALARS):
        array = self._array
        # _constant_and_operand inlined on this hot path (NOTE [constants cast once]).
        scalar_type = array.dtype.type
        if type(rhs) is scalar_type:
            value = operand = rhs
        else:
            entry = _constants.get(id(rhs))
            if (entry is None or entry[0] is not rhs or entry[1] is not scalar_type
                    or entry[3] is entry[2]):
                entry = _cast_constant(rhs, scalar_type)
            value = entry[2]
            operand = entry[3]
        flags = _thread_flags.flags
        if not (flags.enable_backprop or flags.hooks or flags.debug):
            # _direct and _wrap inlined: a gradient times a constant is the commonest
            # operation of a backward (NOTE [operators without a node]).
            if type(array) is _ndarray:
                y = array * operand
                if type(y) is not _ndarray:
                    y = numpy.asarray(y, array.dtype)
                return _new_unlinked_variable(y, self._node._requires_grad)
            if _direct_on_cupy(array, None):
                return _wrap(array * value, self)
        node = _new(MulConstant)
        node.value = value
        if value is not rhs:
            node._written = rhs
        return node.apply((self,))[0]
    if isinstance(rhs, Variable) and _direct(self, rhs) and self._array.dtype.kind == "f":
        return _wrap(self._array * rhs._array, self, rhs)
    return Mul().apply((self, _preprocess_rhs(self, rhs)))[0]


def _summed_grads(arrays: list[Any], indexes: tuple[int, ...], inputs: tuple[Variable, ...],
                  gy: Variable) -> tuple[Variable, ...]:
    """The gradients ``arrays`` of ``inputs[i]`` for ``i`` in ``indexes``, each summed to its
    input's shape, as Variables that require a gradient as the gradient node's outputs would."""
    requires_grad = gy._node._requires_grad or any(x._node._requires_grad for x in inputs)
    return tuple(_new_unlinked_variable(utils.sum_to(array, inputs[i].shape), requires_grad)
                 for array, i in zip(arrays, indexes))


# ------------------------------------------------------------------------------------ div
# NOTE [gradient nodes of the operators]
# Where a gradient can be observed or differentiated (function hooks, double backprop, debug
# mode), abs, / and ** apply Chainer's gradient nodes (AbsoluteGrad, DivGrad, PowVarConstGrad,
# ...), which hooks then report as on Chainer. Otherwise they compute the same arithmetic with
# operators that skip their nodes (NOTE [operators without a node]).
class Div(_Binary):
    """``lhs / rhs`` with broadcasting."""

    float_only = True

    @property
    def label(self) -> str:
        return "_ / _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        return utils.force_array(a / b),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        a, b = self.get_retained_inputs()
        if not _direct(gy):  # NOTE [gradient nodes of the operators]
            return DivGrad(a.shape == b.shape).apply((a, b, gy))
        # NOTE [gradient arrays of the operators]
        arrays = div_grads(a._array, b._array, gy._array, second=1 in indexes)
        return _summed_grads([arrays[i] for i in indexes], indexes, (a, b), gy)


class DivFromConstant(_Constant, _FloatUnary):
    """``c / x`` for a constant ``c``."""

    @property
    def label(self) -> str:
        return f"{_constant_label(self._shown_value)} / _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(self.value / x, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if not _direct(gy):  # NOTE [gradient nodes of the operators]
            return DivFromConstantGrad(self.value).apply((x, gy))
        return _wrap(div_from_constant_grad(self.value, x._array, gy._array), x, gy),


def div(self: Variable, rhs: Any) -> Variable:
    """``self / rhs``."""
    if isinstance(rhs, _SCALARS):
        # The reciprocal in double precision, then cast: as Chainer, whose x / c is
        # MulConstant(1. / c) (so an integer Variable divided by 2 gives zeros there too; NOTE
        # [NumPy scalars as constants]). Going through mul also gives a backward's ``gy / c``
        # mul's path without a node. The reciprocal is kept with the constant, so that mul
        # finds it cast already (NOTE [constants cast once]).
        entry = _reciprocals.get(id(rhs))
        if entry is None or entry[0] is not rhs:
            entry = (rhs, 1.0 / numpy1_constant(rhs))
            _keep(_reciprocals, rhs, entry)
        return mul(self, entry[1])
    return Div().apply((self, _preprocess_rhs(self, rhs)))[0]


def rdiv(self: Variable, rhs: Any) -> Variable:
    """``rhs / self``."""
    if isinstance(rhs, _SCALARS):
        return DivFromConstant(_preprocess_const(self, rhs), rhs).apply((self,))[0]
    return Div().apply((_preprocess_rhs(self, rhs), self))[0]


# ------------------------------------------------------------------------------- floordiv
def floordiv(self: Variable, rhs: Any) -> Variable:
    """``self // rhs``: ``floor(self / rhs)``, a new Variable that requires no gradient.

    compat: as in Chainer, floor division is not differentiable and starts a new graph.
    """
    return _floor(div(self, rhs))


def rfloordiv(self: Variable, rhs: Any) -> Variable:
    """``rhs // self``: ``floor(rhs / self)``, a new Variable that requires no gradient."""
    return _floor(rdiv(self, rhs))


# ------------------------------------------------------------------------------------ pow
class PowVarVar(_Binary):
    """``lhs ** rhs`` with broadcasting."""

    float_only = True

    @property
    def label(self) -> str:
        return "_ ** _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        return utils.force_array(a ** b),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        a, b = self.get_retained_inputs()
        if not _direct(gy):  # NOTE [gradient nodes of the operators]
            power = utils.force_array(a.array ** b.array)
            return PowVarVarGrad(a.shape == b.shape, power).apply((a, b, gy))
        # NOTE [gradient arrays of the operators]
        power = utils.force_array(a._array ** b._array) if 1 in indexes else None
        arrays = pow_var_var_grads(a._array, b._array, power, gy._array, indexes)
        return _summed_grads(arrays, indexes, (a, b), gy)


class PowVarConst(_Constant, _FloatUnary):
    """``x ** c`` for a constant ``c``."""

    @property
    def label(self) -> str:
        return f"_ ** {_constant_label(self._shown_value)}"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(x ** self.value, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if not _direct(gy):  # NOTE [gradient nodes of the operators]
            return PowVarConstGrad(self._shown_value).apply((x, gy))
        return _wrap(pow_var_const_grad(self._shown_value, x._array, gy._array), x, gy),


class PowConstVar(_Constant, _FloatUnary):
    """``c ** x`` for a constant ``c``."""

    @property
    def label(self) -> str:
        return f"{_constant_label(self._shown_value)} ** _"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(self.value ** x, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        if not _direct(gy):  # NOTE [gradient nodes of the operators]
            return PowConstVarGrad(self._shown_value).apply((y, gy))
        return _wrap(pow_const_var_grad(self._shown_value, y._array, gy._array), y, gy),


def pow(self: Variable, rhs: Any) -> Variable:
    """``self ** rhs``."""
    if isinstance(rhs, _SCALARS):
        return PowVarConst(_preprocess_const(self, rhs), rhs).apply((self,))[0]
    return PowVarVar().apply((self, _preprocess_rhs(self, rhs)))[0]


def rpow(self: Variable, rhs: Any) -> Variable:
    """``rhs ** self``."""
    if isinstance(rhs, _SCALARS):
        return PowConstVar(_preprocess_const(self, rhs), rhs).apply((self,))[0]
    return PowVarVar().apply((_preprocess_rhs(self, rhs), self))[0]


# ------------------------------------------------------------------------------------ others
def neg(self: Variable) -> Variable:
    """``-self``."""
    if _direct(self):
        return _wrap(-self._array, self)
    return Neg().apply((self,))[0]


def absolute(self: Variable) -> Variable:
    """``abs(self)``."""
    return Absolute().apply((self,))[0]


def matmul(self: Variable, rhs: Any) -> Variable:
    """``self @ rhs``."""
    return _matmul(self, _preprocess_rhs(self, rhs))


def rmatmul(self: Variable, rhs: Any) -> Variable:
    """``rhs @ self``."""
    return _matmul(_preprocess_rhs(self, rhs), self)


def _constant_label(value: Any) -> str:
    if not numpy.isscalar(value):
        return "constant array"
    # compat: negative constants in parentheses, as Chainer labels them ('_ + (-0.5)'), and
    # written by format(), not str(), as Chainer writes them: a NumPy float32 prints its
    # double-precision value there ('(-0.6535223126411438)'; str gives '-0.6535223').
    negative = not isinstance(value, (complex, numpy.complexfloating)) and bool(
        typing.cast(Any, value) < 0)
    return f"({format(value)})" if negative else str(value)


# The operators as Variable's own methods, where the first operand is always a Variable.
_OPERATORS = (("__add__", add), ("__radd__", add), ("__sub__", sub), ("__rsub__", rsub),
              ("__mul__", mul), ("__rmul__", mul), ("__truediv__", div), ("__rtruediv__", rdiv),
              ("__floordiv__", floordiv), ("__rfloordiv__", rfloordiv), ("__pow__", pow),
              ("__rpow__", rpow), ("__neg__", neg), ("__abs__", absolute),
              ("__matmul__", matmul), ("__rmatmul__", rmatmul))


def _install_variable_operators() -> None:
    """Binds the operators into Variable: see NOTE [late binding] in variable.py."""
    _variable_module._ops = __import__(__name__, fromlist=["_"])
    # The binary operators go straight onto the class: one Python frame less per operation.
    for name, function in _OPERATORS:
        setattr(Variable, name, function)


def _taking_arrays(operator: Callable[..., Variable]) -> Callable[..., Variable]:
    """The module-level form of an operator, whose first operand may also be an array (wrapped
    into a Variable that needs no gradient), as Chainer's functions take one."""
    def public(operand: Any, *operands: Any) -> Variable:
        if isinstance(operand, _ndarray) or backend.is_cupy_array(operand):
            operand = Variable(operand, requires_grad=False)
        return operator(operand, *operands)
    return functools.wraps(operator)(public)


def install_variable_arithmetics() -> None:
    """Binds the arithmetic operators into ``Variable``; idempotent.

    Compat: Chainer's package calls this once at import; here the operators are bound when this
    module is imported, so a later call only binds the same functions again.
    """
    _install_variable_operators()


_install_variable_operators()
# compat: chainer.functions.add(x, y) and this module's functions are called on arrays too
# (nnoir-chainer's converters do); Variable's methods keep the direct functions above.
add, sub, rsub, mul, div, rdiv, floordiv, rfloordiv, pow, rpow, neg, absolute, matmul, rmatmul = (
    _taking_arrays(operator) for operator in (
        add, sub, rsub, mul, div, rdiv, floordiv, rfloordiv, pow, rpow, neg, absolute, matmul,
        rmatmul))
