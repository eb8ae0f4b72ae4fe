"""``det`` and ``batch_det``: differentiable determinants of square matrices.

Layer 5: imports the core, ``batch_inv``, ``broadcast_to``, ``reshape`` and ``transpose``.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.functions.array.transpose import transpose
from chainer_compat.functions.math.inv import batch_inv
from chainer_compat.utils import type_check


class BatchDet(FunctionNode):
    """Determinants of a batch of square matrices ``(m, n, n)``; float16 is computed in
    float32."""

    @property
    def label(self) -> str:
        return "det"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        a_type, = in_types
        type_check.expect(a_type.dtype.kind == "f")
        type_check.expect(a_type.ndim == 3)
        type_check.expect(a_type.shape[-1] == a_type.shape[-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        work = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
        return utils.force_array(xp.linalg.det(work), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        determinant, = self.get_retained_outputs()
        gy, = grad_outputs
        # Jacobi's formula: d det(A) / dA = det(A) * A^-T.
        inverse_t = batch_inv(transpose(x, (0, 2, 1)))
        # compat: gy and the determinant each broadcast, then multiplied, as in Chainer.
        gy = broadcast_to(gy[:, None, None], inverse_t.shape)
        determinant = broadcast_to(determinant[:, None, None], inverse_t.shape)
        return gy * determinant * inverse_t,


def batch_det(a: Any) -> variable.Variable:
    """Determinant of each square matrix of a batch.

    Args:
        a: Input Variable or array (float) of shape ``(m, n, n)``.

    Returns:
        A Variable of shape ``(m,)``.
    """
    y, = BatchDet().apply((a,))
    return y


def det(a: Any) -> variable.Variable:
    """Determinant of one square matrix.

    Args:
        a: Input Variable or array (float) of shape ``(n, n)``; as in Chainer, any array of
            ``n * n`` entries whose first two axes are ``(n, n)`` is read as that matrix (a
            ``(n, n, 1, 1)`` convolution weight, say).

    Returns:
        A 0-d Variable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If ``a`` is not a square matrix.
    """
    shape = variable.as_array(a).shape
    # compat: Chainer reshapes the input to its first two axes (Glow's 1x1 invertible
    # convolution takes the determinant of its (n, n, 1, 1) weight this way).
    batched = reshape(a, (1,) + (shape[:2] if len(shape) > 2 else shape))
    y, = BatchDet().apply((batched,))
    return reshape(y, ())
