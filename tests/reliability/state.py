"""What a user can observe of chainer_compat's state, to prove an error changed none of it.

``State.of(variables)`` records the Variables' arrays, gradients and graph links, the thread's
configuration both as read and as it takes effect on ``apply``, the global hooks and the
type-check mode. ``assert_next_run_correct`` then checks that a fresh mixed graph still gets the
right gradients.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy

import chainer_compat as C
import chainer_compat.functions as F
from chainer_compat import FunctionNode, Variable
from chainer_compat.autograd import Function as CtxFunction
from chainer_compat.configuration import KEYS
from chainer_compat.function import Function
from chainer_compat.utils import type_check


class _WantsVector(FunctionNode):
    def check_type_forward(self, in_types):
        type_check._argname(in_types, ("x",))
        x, = in_types
        type_check.expect(x.ndim == 1)

    def forward(self, inputs):
        return inputs[0] * 1.0,


class _MakesNaN(FunctionNode):
    def forward(self, inputs):
        return numpy.full_like(inputs[0], numpy.nan),


def effective_config() -> dict[str, Any]:
    """What the thread's configuration does, observed through applying functions."""
    x = Variable(numpy.ones((2, 2)))
    try:
        _WantsVector().apply((x,))
        type_checked = False
    except type_check.InvalidType:
        type_checked = True
    try:
        _MakesNaN().apply((x,))
        nan_checked = False
    except RuntimeError:
        nan_checked = True
    y = x * 2.0
    return {"records graph": y.creator is not None, "type checks": type_checked,
            "NaN checks": nan_checked, "lazy grad sum": y.creator_node.lazy_grad_sum}


def _variable_state(variable: Variable) -> dict[str, Any]:
    node = variable.node
    return {
        "array": None if variable.array is None else variable.array.copy(),
        "array id": id(variable.array),
        "grad": None if variable.grad is None else variable.grad.copy(),
        "grad_var id": id(variable.grad_var),
        "creator id": id(variable.creator_node),
        "rank": variable.rank,
        "requires_grad": variable.requires_grad,
        "retained id": id(node.data),
    }


@dataclasses.dataclass
class State:
    variables: list[dict[str, Any]]
    config_seen: dict[str, Any]
    config_effect: dict[str, Any]
    thread_keys: list[str]
    global_hooks: dict[str, Any]
    light_mode: bool

    @classmethod
    def of(cls, variables: list[Variable]) -> State:
        return cls(
            variables=[_variable_state(v) for v in variables],
            config_seen={key.name: getattr(C.config, key.name) for key in KEYS},
            config_effect=effective_config(),
            thread_keys=sorted(k for k in vars(C.config) if not k.startswith("_")),
            global_hooks=dict(C.get_function_hooks()),
            light_mode=type_check.in_light_mode(),
        )

    def assert_same_as(self, before: State) -> None:
        """Fails, naming the difference, if anything changed since ``before``."""
        assert len(self.variables) == len(before.variables)
        for index, (now, then) in enumerate(zip(self.variables, before.variables)):
            for key in then:
                a, b = now[key], then[key]
                if isinstance(b, numpy.ndarray) or isinstance(a, numpy.ndarray):
                    same = (a is None) == (b is None) and (
                        a is None or (a.shape == b.shape and a.dtype == b.dtype
                                      and numpy.array_equal(a, b, equal_nan=True)))
                else:
                    same = a == b
                assert same, f"variable {index}: {key} changed"
        assert self.config_seen == before.config_seen, "configuration changed"
        assert self.config_effect == before.config_effect, "configuration took another effect"
        assert self.thread_keys == before.thread_keys, "keys were set on the thread's config"
        assert self.global_hooks == before.global_hooks, "global hooks changed"
        assert self.light_mode == before.light_mode, "type-check light mode left on"


class _Cube(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 3,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 3.0 * x * x * grad_outputs[0],


class _OldScale(Function):
    def forward_cpu(self, inputs):
        return inputs[0] * 5.0,

    def backward_cpu(self, inputs, grad_outputs):
        return grad_outputs[0] * 5.0,


class _CtxSquare(CtxFunction):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, gy):
        x, = ctx.saved_tensors
        return 2.0 * x * gy


def assert_next_run_correct() -> None:
    """A fresh graph of new-style, old-style and ctx nodes gets the analytic gradient."""
    array = numpy.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], numpy.float32)
    x = Variable(array.copy())
    y, = _Cube().apply((x,))
    loss = F.sum(_OldScale()(y)) + F.sum(_CtxSquare.apply(x))
    loss.backward()
    numpy.testing.assert_allclose(x.grad, 15.0 * array ** 2 + 2.0 * array, rtol=1e-6)
    gx, = C.grad([loss], [x])
    numpy.testing.assert_allclose(gx.array, x.grad, rtol=1e-6)
