"""``broadcast_to`` and ``broadcast``: differentiable NumPy broadcasting.

Layer 5: imports backend, variable, function_node and utils.type_check; ``sum_to`` (in
functions/math/sum.py, which imports this module) is imported where backward runs.
"""

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
        shape = type_check.eval(in_types[0].shape)
        # Compare trailing dimensions first, as broadcasting aligns shapes on the right.
        for i in range(-1, -len(shape) - 1, -1):
            if shape[i] == self._shape[i] or shape[i] == 1:
                continue
            # compat: Chainer's wording, which names the input in_type[0].
            expect = f"in_type[0].shape[{i}] == {self._shape[i]}"
            if self._shape[i] != 1:
                expect += f" or in_type[0].shape[{i}] == 1"
            raise type_check.InvalidType(expect, f"in_type[0].shape: {shape}")

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        if len(in_data) == 1 and in_data[0].shape == self._shape:
            return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.broadcast_to(x, self._shape),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.math.sum import sum_to  # sum.py imports this module

        return sum_to(grad_outputs[0], self._in_shape),


def broadcast_to(x: Any, shape: Any) -> variable.Variable:
    """Broadcasts ``x`` to ``shape``.

    When ``x`` already has that shape it is returned as a Variable without a new node.

    Args:
        x: Input Variable or array.
        shape: The target shape (an int is read as a 1-D shape).

    Returns:
        A Variable holding a read-only broadcast view of ``x``'s array.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``x`` cannot be broadcast to
            ``shape``.
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    y, = BroadcastTo(shape).apply((x,))
    return y


class Broadcast(FunctionNode):
    """Broadcasts all its inputs against each other."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check.expect_broadcast_shapes(*[in_type.shape for in_type in in_types])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        xp = backend.get_array_module(*inputs)
        return tuple(xp.broadcast_arrays(*inputs))

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        from chainer_compat.functions.math.sum import sum_to  # see BroadcastTo.backward

        grads: list[Any] = []
        for index in indexes:
            grad = grad_outputs[index]
            grads.append(None if grad is None else sum_to(grad, self._in_shapes[index]))
        return tuple(grads)


def broadcast(*args: Any) -> Any:
    """Broadcasts the inputs to one common shape.

    Args:
        *args: Input Variables or arrays.

    Returns:
        One Variable for one input (the input itself, as a Variable), else a tuple of
        Variables, one per input.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If there is no input or the shapes do
            not broadcast together.
    """
    if len(args) == 1:
        return variable.as_variable(args[0])
    return Broadcast().apply(args)
