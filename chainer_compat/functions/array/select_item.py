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
        self._in_dtype = x.dtype
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
                grads.append(Assign(self._in_shape, self._in_dtype, t).apply(grad_outputs)[0])
            else:
                grads.append(None)
        return tuple(grads)


class Assign(FunctionNode):
    """The gradient of :class:`SelectItem`: ``gy[i]`` placed at ``[i, t[i]]`` in zeros of
    ``shape`` (the labels ``t`` are a constant of the node, as in Chainer)."""

    def __init__(self, shape: tuple[int, ...], dtype: Any, t: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.t = variable.as_array(t)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, self.dtype)
        gx[xp.arange(self.t.size), self.t] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return SelectItem().apply((grad_outputs[0], self.t))


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
