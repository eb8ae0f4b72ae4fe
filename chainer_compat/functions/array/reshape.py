"""``reshape``: a differentiable change of shape.

Layer 5: imports variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check
from chainer_compat.utils._assertions import AssertValueError


def _count_unknown(shape: tuple[int, ...]) -> int:
    return sum(1 for dim in shape if dim < 0)


class Reshape(FunctionNode):
    """Reshapes its input; backward reshapes the gradient back.

    Raises:
        ValueError: If ``shape`` has more than one unknown (negative) dimension (also an
            AssertionError, as Chainer asserts it).
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)
        self._unknown = _count_unknown(self.shape)
        if self._unknown > 1:
            # compat: Chainer asserts this (NOTE [bare asserts] in utils/_assertions.py).
            raise AssertValueError(
                f"reshape shape must have at most one unknown dimension (-1), got {self.shape}")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        size = type_check.prod(in_types[0].shape)
        if self._unknown == 0:
            type_check.expect(size == type_check.prod(self.shape))
        else:
            known = 1
            for dim in self.shape:
                if dim > 0:
                    known *= dim
            known_size = type_check.make_variable(known, f"known_size(={known})")
            type_check.expect(size % known_size == 0)

    def _check_data_type_forward(self, in_data: tuple[Any, ...]) -> None:
        # Reshape runs on every Variable.reshape: check the common case without expressions.
        if len(in_data) == 1 and self._unknown == 0:
            size = 1
            for dim in self.shape:
                size *= dim
            if in_data[0].size == size:
                return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return x.reshape(self.shape),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # compat: through reshape(), as Chainer: a gradient of the input's shape already (a
        # reshape to (1, -1) of a (1, 3) input) is passed on with no node for hooks to see.
        return reshape(grad_outputs[0], self._in_shape),


def reshape(x: Any, shape: Any) -> variable.Variable:
    """Returns ``x`` reshaped to ``shape``.

    When ``x`` already has that shape it is returned as a Variable without a new node.

    Args:
        x: Input Variable or array.
        shape: The new shape (an int is read as a 1-D shape); one entry may be -1, which is
            inferred from the size of ``x``.

    Returns:
        A Variable holding a reshaped view of ``x``'s array.

    Raises:
        ValueError: If ``shape`` has more than one -1.
        chainer_compat.utils.type_check.InvalidType: If the sizes do not match.
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    y, = Reshape(shape).apply((x,))
    return y
