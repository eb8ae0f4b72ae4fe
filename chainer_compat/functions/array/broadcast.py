"""``broadcast_to`` and ``broadcast``: differentiable NumPy broadcasting."""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class BroadcastTo(FunctionNode):
    """Broadcasts its input to ``shape``; backward sums the gradient back."""

    def __init__(self, shape: Any) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        ndim = type_check.make_variable(len(self._shape), "len(shape)")
        type_check.expect(in_types[0].ndim <= ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.broadcast_to(x, self._shape),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.math.sum import sum_to  # sibling module, no cycle at load

        gy, = grad_outputs
        return sum_to(gy, self._in_shape),


def broadcast_to(x: Any, shape: Any) -> variable.Variable:
    """Broadcasts ``x`` to ``shape`` (differentiable)."""
    shape = tuple(shape)
    if getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    y, = BroadcastTo(shape).apply((x,))
    return y


class Broadcast(FunctionNode):
    """Broadcasts all inputs against each other."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        xp = backend.get_array_module(*inputs)
        return tuple(xp.broadcast_arrays(*inputs))

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.math.sum import sum_to  # see BroadcastTo.backward

        return tuple([None if grad_outputs[i] is None else sum_to(grad_outputs[i],
                                                                  self._in_shapes[i])
                      for i in indexes])


def broadcast(*args: Any) -> Any:
    """Broadcasts the inputs to a common shape; one Variable for one input, else a tuple."""
    if len(args) == 0:
        raise ValueError("broadcast must get at least one input, got none")
    outputs = Broadcast().apply(args)
    return outputs[0] if len(outputs) == 1 else outputs
