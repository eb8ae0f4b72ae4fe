"""``local_response_normalization``: AlexNet's normalization across neighbouring channels.

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


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
        x, = inputs
        unit_scale = self.k + self.alpha * _window_sum_array(x * x, self.n // 2)
        return utils.force_array(x * unit_scale ** -self.beta, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        half = self.n // 2
        # Recomputed from Variables so that the gradient is differentiable again.
        unit_scale = _ChannelWindowSum(half).apply((x * x,))[0] * self.alpha + self.k
        scale = unit_scale ** -self.beta
        y = x * scale
        spread = _ChannelWindowSum(half).apply((y * gy / unit_scale,))[0]
        # compat: (2 alpha beta x) times the window sum, in Chainer's order, for its rounding
        # (NOTE [Chainer's rounding] in functions/loss/softmax_cross_entropy.py).
        return gy * scale - x * (2 * self.alpha * self.beta) * spread,


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
