"""``linear_interpolate``: the differentiable ``p * x + (1 - p) * y``.

Layer 5: imports the core.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class LinearInterpolate(FunctionNode):
    """Elementwise ``p * x + (1 - p) * y`` of three same-shaped, same-dtype inputs."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("p", "x", "y"))
        p_type, x_type, y_type = in_types
        type_check.expect(
            p_type.dtype.kind == "f",
            x_type.dtype == p_type.dtype,
            y_type.dtype == p_type.dtype,
            p_type.shape == x_type.shape,
            p_type.shape == y_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        p, x, y = inputs
        # y + p * (x - y) would round differently from Chainer at p == 1.
        return utils.force_array(p * x + (p.dtype.type(1) - p) * y),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        p, x, y = self.get_retained_inputs()
        g, = grad_outputs
        weighted = g * p
        grads = []
        for index in indexes:
            if index == 0:
                grads.append(g * (x - y))
            elif index == 1:
                grads.append(weighted)
            else:
                # compat: g - p g, as Chainer's CPU code rounds it (not g (1 - p)).
                grads.append(g - weighted)
        return tuple(grads)


def linear_interpolate(p: Any, x: Any, y: Any) -> variable.Variable:
    """Elementwise linear interpolation, ``p * x + (1 - p) * y``.

    Args:
        p: Weights of ``x`` (float Variable or array).
        x: First input, of ``p``'s shape and dtype.
        y: Second input, of ``p``'s shape and dtype.

    Returns:
        The output Variable.
    """
    out, = LinearInterpolate().apply((p, x, y))
    return out
