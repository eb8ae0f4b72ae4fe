"""``polygamma``: the polygamma functions, differentiable in ``x``.

Layer 5: imports the core, ``sum_to`` and the shared special-function lookups.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.math._special import cpu_kernel, gpu_kernel
from chainer_compat.functions.math.sum import sum_to
from chainer_compat.utils import type_check


class PolyGamma(FunctionNode):
    """Elementwise ``n``-th derivative of digamma; ``n`` (integers) gets no gradient."""

    @property
    def label(self) -> str:
        return "polygamma"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("n", "x"))
        n_type, x_type = in_types
        type_check.expect(n_type.dtype.kind == "i", x_type.dtype.kind == "f")

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        n, x = inputs
        kernel = cpu_kernel(self.label, "polygamma")
        self.retain_inputs((0, 1))
        return utils.force_array(kernel(n, x), x.dtype),

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        n, x = inputs
        self.retain_inputs((0, 1))
        return utils.force_array(gpu_kernel("polygamma")(n, x), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        n, x = self.get_retained_inputs()
        # compat: n + 1 is a node ('_ + 1') on the integer n, as in Chainer.
        gx = polygamma(n + 1, x) * grad_outputs[0]
        # n may broadcast x to a larger output.
        return None, sum_to(gx, x.shape)


def polygamma(n: Any, x: Any) -> variable.Variable:
    """Elementwise polygamma function of order ``n``: the ``n + 1``-th derivative of
    :func:`lgamma` (``n = 0`` is digamma).

    Uses ``scipy.special.polygamma`` on CPU and ``cupyx.scipy.special.polygamma`` on GPU.

    Args:
        n: Orders, a non-negative integer array (or Variable) that broadcasts with ``x``.
        x: Input Variable or array (float).

    Returns:
        The output Variable, of the broadcast shape and ``x``'s dtype.

    Raises:
        ImportError: On CPU when SciPy is not installed.
    """
    y, = PolyGamma().apply((n, x))
    return y
