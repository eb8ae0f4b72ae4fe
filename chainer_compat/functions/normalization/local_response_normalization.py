"""``local_response_normalization``: AlexNet's normalization across neighbouring channels.

Layer 5: imports configuration, utils, variable, function_node, type_check and
``functions.connection.linear``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import configuration, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.connection.linear import _may_skip_gradient_nodes
from chainer_compat.utils import type_check
from chainer_compat.variable import _new_unlinked_variable


def _window_sum_array(x: Any, half: int) -> Any:
    """Sums ``x`` over the channels ``c - half .. c + half`` (axis 1) for every channel ``c``."""
    total = x.copy()
    for offset in range(1, half + 1):
        total[:, offset:] += x[:, :-offset]
        total[:, :-offset] += x[:, offset:]
    return total


class _ChannelWindowSum(FunctionNode):
    """The channel-window sum as a node; its window is symmetric, so it is its own adjoint."""

    def __init__(self, half: int) -> None:
        self.half = half

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _window_sum_array(inputs[0], self.half),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _ChannelWindowSum(self.half).apply(grad_outputs)


class LocalResponseNormalization(FunctionNode):
    """Local response normalization. Use :func:`local_response_normalization`."""

    def __init__(self, n: int = 5, k: float = 2, alpha: float = 1e-4,
                 beta: float = 0.75) -> None:
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type, = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= 2,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        unit_scale = self.k + self.alpha * _window_sum_array(x * x, self.n // 2)
        return utils.force_array(x * unit_scale ** -self.beta, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        if _may_skip_gradient_nodes(gy):  # NOTE [gradients without a node]
            gx = _gradient_array(x.array, y.array, gy.array, self.n // 2, self.k, self.alpha,
                                 self.beta)
            return _new_unlinked_variable(gx, x._node._requires_grad or gy._node._requires_grad),
        # compat: one node, as Chainer applies, which function hooks and double backprop see.
        return LocalResponseNormalizationGrad(self.n, self.k, self.alpha, self.beta).apply(
            (x, y, gy))


def _gradient_array(x: Any, y: Any, gy: Any, half: int, k: float, alpha: float,
                    beta: float) -> Any:
    """The gradient of x on arrays, from the forward's output y, in Chainer's arithmetic."""
    unit_scale = k + alpha * _window_sum_array(x * x, half)
    spread = _window_sum_array(y * gy / unit_scale, half)
    return utils.force_array(gy * unit_scale ** -beta - x * (2 * alpha * beta) * spread,
                             x.dtype)


def _composed_gradient(x: Any, gy: Any, half: int, k: float, alpha: float,
                       beta: float) -> Any:
    """The gradient of x composed of differentiable operations on x and gy alone."""
    unit_scale = _ChannelWindowSum(half).apply((x * x,))[0] * alpha + k
    scale = unit_scale ** -beta
    spread = _ChannelWindowSum(half).apply((x * scale * gy / unit_scale,))[0]
    # compat: (2 alpha beta x) times the window sum, in Chainer's order, for its rounding
    # (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
    return gy * scale - x * (2 * alpha * beta) * spread


class LocalResponseNormalizationGrad(FunctionNode):
    """The gradient of :class:`LocalResponseNormalization`: ``(x, y, gy) -> gx``.

    Chainer's cannot be differentiated; this one can: its backward differentiates the
    gradient's composition of Variable operations (as :func:`chainer_compat.grad` does).
    """

    def __init__(self, n: int, k: float, alpha: float, beta: float) -> None:
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 2))
        x, y, gy = inputs
        return _gradient_array(x, y, gy, self.n // 2, self.k, self.alpha, self.beta),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer_compat import _engine  # layer 6: differentiates the composition below

        x, gy = self.get_retained_inputs()
        record = configuration.config.enable_backprop
        with configuration.using_config("enable_backprop", True):
            gx = _composed_gradient(x, gy, self.n // 2, self.k, self.alpha, self.beta)
        # The composition depends on x alone where this node also reads y = f(x): its whole
        # derivative goes to x, none to y.
        g_x, g_gy = _engine.grad([gx], [x, gy], [grad_outputs[0]],
                                 enable_double_backprop=record)
        return tuple([(g_x, None, g_gy)[index] for index in indexes])


def local_response_normalization(x: Any, n: int = 5, k: float = 2, alpha: float = 1e-4,
                                 beta: float = 0.75) -> variable.Variable:
    """Local response normalization across channels (axis 1):
    ``y_c = x_c / (k + alpha * sum_{|j - c| <= n // 2} x_j ** 2) ** beta``.

    Args:
        x: Float input with at least two axes; axis 1 holds the channels.
        n: Width of the channel window.
        k: Smoothing constant.
        alpha: Scale of the sum of squares.
        beta: Exponent.

    Returns:
        A Variable of ``x``'s shape.

    Raises:
        chainer_compat.utils.type_check.InvalidType: On a non-float or 1-dimensional input.
    """
    return LocalResponseNormalization(n, k, alpha, beta).apply((x,))[0]
