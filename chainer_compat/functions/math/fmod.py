"""``fmod``: the differentiable remainder of division, with the sign of the dividend.

Layer 5: imports the core and sum_to.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math.fix import fix
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check


class Fmod(FunctionNode):
    """Elementwise ``x - trunc(x / divisor) * divisor`` (C's ``fmod``), with broadcasting."""

    @property
    def label(self) -> str:
        return "fmod"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "divisor"))
        type_check.expect(
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].dtype.kind == "f",
            in_types[1].dtype.kind == "f",
        )
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, divisor = inputs
        xp = backend.get_array_module(x, divisor)
        return utils.force_array(xp.fmod(x, divisor), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, divisor = self.get_retained_inputs()
        gy, = grad_outputs
        # compat: as Chainer, the divisor's gradient is computed even when unwanted. fix()
        # returns the truncated quotient without a node: it is piecewise constant.
        all_grads = (sum_to(gy, x.shape), sum_to(-fix(x / divisor) * gy, divisor.shape))
        return tuple(all_grads[index] for index in indexes)


def fmod(x: Any, divisor: Any) -> variable.Variable:
    """Elementwise remainder of ``x / divisor``, with the sign of ``x``.

    Args:
        x: Dividend (float Variable or array).
        divisor: Divisor, of ``x``'s dtype and broadcastable with it.

    Returns:
        The output Variable.
    """
    y, = Fmod().apply((x, divisor))
    return y
