"""``clipped_relu`` and ``relu6``: ReLU capped at ``z``, ``min(max(0, x), z)``.

Layer 5: imports backend, utils and function_node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.activation._common import FloatActivation
from chainer_compat.utils._assertions import AssertValueError


class ClippedReLU(FloatActivation):
    """ReLU clipped at a positive float ``z``.

    Raises:
        TypeError: If ``z`` is not a float.
        ValueError: If ``z`` is not positive (also an AssertionError, as Chainer asserts it).
    """

    def __init__(self, z: float) -> None:
        # compat: Chainer takes only a float here (an int such as 20 is refused).
        if not isinstance(z, float):
            raise TypeError(f"z must be float value, got {type(z).__name__} {z!r}")
        if not z > 0:
            # compat: Chainer asserts this (NOTE [bare asserts] in utils/_assertions.py).
            raise AssertValueError(f"z must be positive, got {z}")
        self.cap = z

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(xp.clip(x, 0, x.dtype.type(self.cap)), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return ClippedReLUGrad2(x.array, self.cap).apply(grad_outputs)


class ClippedReLUGrad2(FunctionNode):
    """Gradient of ClippedReLU: ``gy`` where ``0 < x < z``; linear, so its backward is itself."""

    def __init__(self, x: Any, z: float) -> None:
        self.x = x
        self.cap = z

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        x = self.x
        return utils.force_array(gy * ((0 < x) & (x < self.cap)), gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return ClippedReLUGrad2(self.x, self.cap).apply(grad_outputs)


def clipped_relu(x: Any, z: float = 20.0) -> variable.Variable:
    """Clipped rectified linear unit: ``min(max(0, x), z)``.

    Args:
        x: Input Variable or array of floats.
        z: The clipping value, a positive float.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = ClippedReLU(z).apply((x,))
    return y


def relu6(x: Any) -> variable.Variable:
    """ReLU clipped at 6: ``min(max(0, x), 6)``.

    Args:
        x: Input Variable or array of floats.

    Returns:
        A Variable of ``x``'s shape and dtype.
    """
    y, = ClippedReLU(6.0).apply((x,))
    return y
