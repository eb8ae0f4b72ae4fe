"""``linear_interpolate``: the differentiable ``p * x + (1 - p) * y``.

Layer 5: imports the core and ``functions.connection.linear``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.connection.linear import _may_skip_gradient_nodes
from chainer_compat.utils import type_check
from chainer_compat.variable import _new_unlinked_variable


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
        if not _may_skip_gradient_nodes(g):
            # compat: Chainer's gradient node, which function hooks see.
            return LinearInterpolateGrad().apply((p, x, y, g))
        arrays = _gradient_arrays(p.array, x.array, y.array, g.array)
        wants = p._node._requires_grad or x._node._requires_grad or y._node._requires_grad
        return tuple(_new_unlinked_variable(arrays[index], wants or g._node._requires_grad)
                     for index in indexes)


def _gradient_arrays(p: Any, x: Any, y: Any, g: Any) -> tuple[Any, Any, Any]:
    """The gradients of p, x and y, in Chainer's CPU arithmetic (y's as g - p g)."""
    weighted = utils.force_array(p * g)
    return utils.force_array((x - y) * g), weighted, utils.force_array(g - weighted)


class LinearInterpolateGrad(FunctionNode):
    """The gradients of :class:`LinearInterpolate`: ``(p, x, y, g) -> (gp, gx, gy)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        return _gradient_arrays(*inputs)

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        # Given the gradients (hp, hx, hy) of (gp, gx, gy) = ((x - y) g, p g, g - p g).
        p, x, y, g = self.get_retained_inputs()
        h_p, h_x, h_y = (
            variable.Variable(g.xp.zeros_like(g.array), requires_grad=False) if h is None else h
            for h in grad_outputs)
        # compat: all four, in Chainer's order, so hooks see its nodes in its order.
        by_p = g * (h_x - h_y)
        by_x = g * h_p
        grads = {0: by_p, 1: by_x, 2: -by_x, 3: (x - y) * h_p + p * h_x + (1 - p) * h_y}
        return tuple(grads[index] for index in indexes)


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
