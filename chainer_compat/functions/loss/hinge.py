"""``hinge``: the one-vs-rest hinge loss of class scores against integer labels.

Layer 5: imports backend, utils, variable, function_node and type_check.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_with_values,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check


class Hinge(OldStyleCall, FunctionNode):
    """Hinge loss. Use :func:`hinge`."""

    def __init__(self, norm: str = "L1", reduce: str = "mean") -> None:
        if norm not in ("L1", "L2"):
            # compat: Chainer raises NotImplementedError for an unknown norm.
            raise NotImplementedError(
                f"norm should be either 'L1' or 'L2'\nnorm of hinge got {norm!r}")
        self.norm = norm
        check_reduce(reduce, ("mean", "no"), "hinge")
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    def _label_signs(self, x: Any, t: Any) -> Any:
        """-1 at each sample's label, +1 elsewhere, in ``x``'s dtype."""
        xp = backend.get_array_module(x)
        signs = xp.ones_like(x)
        signs[xp.arange(len(t)), t] = -1
        return signs

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        margin = xp.maximum(0, 1 + x * self._label_signs(x, t))
        loss = margin if self.norm == "L1" else margin * margin
        if self.reduce == "mean":
            loss = loss.sum() / len(x)
        return utils.force_array(loss, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        signs = self._label_signs(x.array, t.array)
        arrays = (self._gradient_array(x.array, signs, gy.array), None)
        if not records_a_graph():
            return gradients_without_graph(arrays, indexes)
        active = utils.force_array(x.array * signs > -1).astype(x.dtype)
        if self.reduce == "mean":
            gy = broadcast_to(gy * (1.0 / len(x)), x.shape)
        if self.norm == "L1":
            gx = gy * (signs * active)
        else:
            # d/dx max(0, 1 + s x)**2 = 2 s max(0, 1 + s x), written to be differentiable in x.
            gx = gy * ((x * signs + 1) * (2 * signs * active))
        return gradients_with_values([gx if i == 0 else None for i in indexes], arrays, indexes)

    def _gradient_array(self, x: Any, signs: Any, gy: Any) -> Any:
        """x's gradient on arrays, in Chainer's arithmetic (NOTE [old-style gradients])."""
        xp = backend.get_array_module(x)
        if self.reduce == "mean":
            gy = gy / len(x)
        # The margins, their sign restored at each label (+-max(0, 1 -+ x)).
        signed_margin = xp.maximum(0, 1 + x * signs) * signs
        if self.norm == "L1":
            gx = gy * xp.sign(signed_margin)
        else:
            gx = 2 * gy * signed_margin
        return utils.force_array(gx, x.dtype)


def hinge(x: Any, t: Any, norm: str = "L1", reduce: str = "mean") -> variable.Variable:
    """Hinge loss ``max(0, 1 - d * x) ** p`` per class, where ``d`` is +1 at the label and -1
    elsewhere, and ``p`` is 1 (``'L1'``) or 2 (``'L2'``).

    Args:
        x: Class scores of shape ``(N, K)``.
        t: Signed integer labels of shape ``(N,)`` with values in ``[0, K)``.
        norm: ``'L1'`` or ``'L2'``.
        reduce: ``'mean'`` sums all terms and divides by ``N``; ``'no'`` keeps them.

    Returns:
        The loss: shape ``()``, or ``(N, K)`` for ``'no'``.

    Raises:
        NotImplementedError: On a norm other than ``'L1'`` and ``'L2'``.
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: On wrong dtypes or shapes.
    """
    return Hinge(norm, reduce).apply((x, t))[0]
