"""``zeta``: the Hurwitz zeta function, differentiable in ``q``.

Layer 5: imports the core and the shared special-function lookups.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math._special import cpu_kernel, gpu_kernel
from chainer_compat.utils import type_check


class Zeta(FunctionNode):
    """Elementwise Hurwitz zeta function ``zeta(x, q)`` of the input ``q``, for a fixed ``x``."""

    def __init__(self, x: Any) -> None:
        self._x = x

    @property
    def label(self) -> str:
        return "zeta"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("q",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        q, = inputs
        kernel = cpu_kernel(self.label, "zeta")
        self.retain_inputs((0,))
        return utils.force_array(kernel(self._x, q), q.dtype),

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        q, = inputs
        self.retain_inputs((0,))
        return utils.force_array(gpu_kernel("zeta")(self._x, q), q.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        q, = self.get_retained_inputs()
        # d/dq zeta(x, q) = -x * zeta(x + 1, q).
        return grad_outputs[0] * -self._x * zeta(self._x + 1, q),


def zeta(x: Any, q: Any) -> variable.Variable:
    """Elementwise Hurwitz zeta function, ``sum over k >= 0 of (k + q) ** -x``.

    Only ``q`` is differentiable. Uses ``scipy.special.zeta`` on CPU and
    ``cupyx.scipy.special.zeta`` on GPU.

    Args:
        x: The exponent: a float or an array of them (not differentiated).
        q: Input Variable or array (float).

    Returns:
        The output Variable, of ``q``'s dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = Zeta(x).apply((q,))
    return y
