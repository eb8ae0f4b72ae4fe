"""``select_item``: picks one element per row, ``y[i] = x[i, t[i]]``.

Layer 5: imports backend, configuration, utils, variable and function_node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.configuration import config
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class SelectItem(FunctionNode):
    """Selects ``x[i, t[i]]`` for every row ``i``; ``t`` gets no gradient.

    Raises:
        ValueError: In debug mode, if a label is out of ``[0, x.shape[1])``.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            t_type.dtype.kind == "i",
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        x, t = inputs
        self._in_shape = x.shape
        if config.debug and not ((0 <= t).all() and (t < x.shape[1]).all()):
            # compat: Chainer's wording, misspelling included.
            raise ValueError("Each label `t` need to satisfty `0 <= t < x.shape[1]`")
        xp = backend.get_array_module(x)
        return utils.force_array(x[xp.arange(t.size), t]),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        t = self.get_retained_inputs()[0]
        grads: list[Any] = []
        for index in indexes:
            if index == 0:
                grads.append(_SelectItemGrad(self._in_shape).apply((t, grad_outputs[0]))[0])
            else:
                grads.append(None)
        return tuple(grads)


class _SelectItemGrad(FunctionNode):
    """Gradient of SelectItem: ``gy[i]`` placed at ``[i, t[i]]`` in zeros."""

    def __init__(self, in_shape: tuple[int, ...]) -> None:
        self.in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        t, gy = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.in_shape, gy.dtype)
        gx[xp.arange(t.size), t] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        t = self.get_retained_inputs()[0]
        grads: list[Any] = []
        for index in indexes:
            if index == 0:
                grads.append(None)
            else:
                grads.append(SelectItem().apply((grad_outputs[0], t))[0])
        return tuple(grads)


def select_item(x: Any, t: Any) -> variable.Variable:
    """Selects one element per row: ``y[i] = x[i, t[i]]`` (``t.choose(x.T)``).

    Args:
        x: Variable or array of shape ``(B, N)``.
        t: Integer Variable or array of shape ``(B,)``, each in ``[0, N)``.

    Returns:
        A Variable of shape ``(B,)``.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On wrong ranks, a non-integer ``t`` or
            mismatched batch sizes.
        ValueError: In debug mode, if a label is out of range.
    """
    y, = SelectItem().apply((x, t))
    return y
