"""``inv`` and ``batch_inv``: differentiable inverses of a square matrix and of a batch of them.

Layer 5: imports the core and ``matmul``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, configuration, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.utils import type_check


def _singular_error() -> ValueError:
    # compat: Chainer's type and first sentence.
    return ValueError("Input has singular matrices. Every matrix given to inv or batch_inv "
                      "must be invertible (non-zero determinant).")


def invert(a: Any) -> Any:
    """Inverts the matrices in the last two axes of ``a``; float16 is computed in float32.

    Raises:
        ValueError: If a matrix is singular (on GPU only in debug mode, as in Chainer).
    """
    xp = backend.get_array_module(a)
    work = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
    try:
        result = xp.linalg.inv(work)
    except numpy.linalg.LinAlgError:
        raise _singular_error() from None
    if xp is not numpy and configuration.config.debug and not bool(xp.isfinite(result).all()):
        # CuPy does not raise on a singular matrix; it returns non-finite values.
        raise _singular_error()
    return utils.force_array(result, a.dtype)


class _InverseBase(FunctionNode):
    """A matrix inverse of an ``_ndim``-d input; backward reuses the output."""

    _ndim = 2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        a_type, = in_types
        type_check.expect(a_type.dtype.kind == "f")
        type_check.expect(a_type.ndim == self._ndim)
        type_check.expect(a_type.shape[-1] == a_type.shape[-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        self.retain_outputs((0,))
        return invert(a),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        inverse, = self.get_retained_outputs()
        # d(A^-1) = -A^-1 dA A^-1, so gA = -(A^-1)^T gY (A^-1)^T.
        left = matmul(-inverse, grad_outputs[0], transa=True)
        return matmul(left, inverse, transb=True),


class Inv(_InverseBase):
    """Inverse of one square matrix ``(n, n)``."""

    _ndim = 2

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        inverse, = self.get_retained_outputs()
        # compat: the transposed inverse as a node, then two products, as Chainer's Inv
        # computes -A^-T gY A^-T (BatchInv transposes inside its products).
        inverse_t = transpose(inverse)
        return matmul(matmul(-inverse_t, grad_outputs[0]), inverse_t),


class BatchInv(_InverseBase):
    """Inverses of a batch of square matrices ``(m, n, n)``."""

    _ndim = 3


def inv(a: Any) -> variable.Variable:
    """Inverse of a square matrix.

    Args:
        a: Input Variable or array (float) of shape ``(n, n)``.

    Returns:
        The ``(n, n)`` inverse.

    Raises:
        ValueError: If ``a`` is singular.
    """
    y, = Inv().apply((a,))
    return y


def batch_inv(a: Any) -> variable.Variable:
    """Inverse of each square matrix of a batch.

    Args:
        a: Input Variable or array (float) of shape ``(m, n, n)``.

    Returns:
        The ``(m, n, n)`` inverses.

    Raises:
        ValueError: If a matrix is singular.
    """
    y, = BatchInv().apply((a,))
    return y
