"""``cholesky``: the differentiable lower-triangular Cholesky factor of a positive-definite matrix.

Layer 5: imports the core, ``inv``, ``matmul`` and ``transpose``.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math.inv import inv
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.utils import type_check


class Cholesky(FunctionNode):
    """Cholesky factor ``L`` (lower triangular, ``A = L L^T``) of one ``(n, n)`` matrix."""

    @property
    def label(self) -> str:
        return "cholesky"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        a_type, = in_types
        type_check.expect(a_type.dtype.kind == "f", a_type.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        self.retain_outputs((0,))
        xp = backend.get_array_module(a)
        # compat: a matrix that is not positive definite raises the array module's LinAlgError.
        return xp.linalg.cholesky(a),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        gy, = grad_outputs
        y, = self.get_retained_outputs()
        xp = backend.get_array_module(gy)
        n = y.shape[0]
        # Only the lower triangle of L^T gL matters, its diagonal counted half
        # (Murray, "Differentiation of the Cholesky decomposition", 2016).
        mask = xp.tri(n, dtype=y.dtype) - 0.5 * xp.eye(n, dtype=y.dtype)
        phi = mask * matmul(y, gy, transa=True)
        y_inverse = inv(y)
        middle = matmul(matmul(y_inverse, phi, transa=True), y_inverse)
        # The input is taken as symmetric, so its gradient is symmetrized.
        return 0.5 * (middle + transpose(middle)),


def cholesky(a: Any) -> variable.Variable:
    """Cholesky decomposition of a symmetric positive-definite matrix.

    Args:
        a: Input Variable or array (float) of shape ``(n, n)``; only its lower triangle is read.

    Returns:
        The lower-triangular ``(n, n)`` factor ``L`` with ``a = L L^T``.

    Raises:
        numpy.linalg.LinAlgError: If ``a`` is not positive definite (on NumPy; CuPy follows its
            own error settings).
    """
    y, = Cholesky().apply((a,))
    return y
