"""``cast``: converts an array to another dtype, differentiably.

Layer 5: imports configuration, variable, function_node and utils.type_check.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Cast(FunctionNode):
    """Casts its input to ``typ``; backward casts the gradient back to the input dtype."""

    def __init__(self, typ: Any) -> None:
        self.type = numpy.dtype(typ)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_type = x.dtype
        return x.astype(self.type, copy=False),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # compat: as Chainer, no gradient flows back into an integer (or boolean, or complex)
        # input, and the gradient goes through cast(): back to the same dtype with backprop
        # off, it is passed on as it is, with no node for hooks to see.
        if self._in_type.kind != "f":
            return None,
        return cast(grad_outputs[0], self._in_type),


def cast(x: Any, typ: Any) -> variable.Variable:
    """Casts ``x`` to the dtype ``typ``.

    When ``x`` already has that dtype and backprop is off, ``x`` is returned as a Variable
    without a new node (as in Chainer, with backprop on a node is always added).

    Args:
        x: Input Variable or array.
        typ: A dtype or anything ``numpy.dtype`` takes (``'f'``, ``numpy.float16``).

    Returns:
        A Variable of dtype ``typ``.
    """
    if x.dtype == typ and not config.enable_backprop:
        return variable.as_variable(x)
    y, = Cast(typ).apply((x,))
    return y
