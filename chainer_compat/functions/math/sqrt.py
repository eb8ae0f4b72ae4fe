"""``sqrt`` and ``rsqrt``: differentiable square root and its reciprocal.

Layer 5: imports the core and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary


class Sqrt(FloatUnary):
    """Elementwise square root; backward reuses the output."""

    _label = "sqrt"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        return utils.force_array(xp.sqrt(x), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return grad_outputs[0] / (y * 2.0),


class RsqrtGPU(FloatUnary):
    """Elementwise ``1 / sqrt(x)`` with CuPy's fused kernel (CuPy inputs only)."""

    _label = "rsqrt"

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        import cupyx  # present whenever cupy is, and only reached with CuPy inputs

        x, = inputs
        self.retain_outputs((0,))
        return utils.force_array(cupyx.rsqrt(x, dtype=x.dtype)),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y * y * y) * -0.5,


def sqrt(x: Any) -> variable.Variable:
    """Elementwise square root; negative inputs give NaN, as in NumPy.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Sqrt().apply((x,))
    return y


def rsqrt(x: Any) -> variable.Variable:
    """Elementwise reciprocal of the square root, ``1 / sqrt(x)``.

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable: ``1.0 / sqrt(x)`` on NumPy, one fused node on CuPy.
    """
    if backend.is_cupy_array(variable.as_array(x)):
        y, = RsqrtGPU().apply((x,))
        return y
    return 1.0 / sqrt(x)
