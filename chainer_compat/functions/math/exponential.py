"""``exp``, ``log``, ``log2``, ``log10``: differentiable exponentials and logarithms."""

from __future__ import annotations

import math
from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Exp(FunctionNode):
    """Elementwise ``e ** x``."""

    @property
    def label(self) -> str:
        return "exp"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(backend.get_array_module(x).exp(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


def exp(x: Any) -> variable.Variable:
    """Elementwise exponential function."""
    y, = Exp().apply((x,))
    return y


class Log(FunctionNode):
    """Elementwise natural logarithm."""

    @property
    def label(self) -> str:
        return "log"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).log(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x,


def log(x: Any) -> variable.Variable:
    """Elementwise natural logarithm."""
    y, = Log().apply((x,))
    return y


class _LogBase(FunctionNode):
    _name = "log"
    _scale = 1.0

    @property
    def label(self) -> str:
        return self._name

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(getattr(xp, self._name)(x)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (self._scale / x),


class Log2(_LogBase):
    """Elementwise base-2 logarithm."""

    _name = "log2"
    _scale = 1.0 / math.log(2.0)


class Log10(_LogBase):
    """Elementwise base-10 logarithm."""

    _name = "log10"
    _scale = 1.0 / math.log(10.0)


def log2(x: Any) -> variable.Variable:
    """Elementwise base-2 logarithm."""
    y, = Log2().apply((x,))
    return y


def log10(x: Any) -> variable.Variable:
    """Elementwise base-10 logarithm."""
    y, = Log10().apply((x,))
    return y
