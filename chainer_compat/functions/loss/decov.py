"""``decov``: the DeCov loss, which penalizes the covariance between different hidden units, and
its node ``DeCov``.

Layer 5: imports backend, variable, function_node, type_check and the array and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions._old_style import (
    OldStyleCall,
    gradients_with_values,
    gradients_without_graph,
    records_a_graph,
)
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.loss._covariance import (
    covariance_array,
    covariance_grads,
    half_squared_sum_array,
)
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check


class DeCov(OldStyleCall, FunctionNode):
    """The DeCov loss of ``h``. Use :func:`decov`.

    Compat: Chainer's is an old-style ``Function``; calling an instance, ``DeCov(reduce)(h)``,
    works as there, but applies a copy of the instance (each call is a node of its own), so
    the attributes below are set on the output's ``creator``, not on the instance called. Its
    gradients are built from differentiable functions, so unlike Chainer's it can be
    differentiated twice.

    Args:
        reduce: ``'half_squared_sum'`` or ``'no'``, as :func:`decov` takes.

    Attributes:
        h_centered: After forward, ``h`` minus its mean over the batch.
        covariance: After forward, the covariance matrix with its diagonal set to zero.

    Raises:
        ValueError: On an invalid ``reduce``.
    """

    def __init__(self, reduce: str = "half_squared_sum") -> None:
        check_reduce(reduce, ("half_squared_sum", "no"), "decov")
        self.reduce = reduce
        self.h_centered: Any = None
        self.covariance: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("h",))
        h_type, = in_types
        type_check.expect(h_type.dtype.kind == "f", h_type.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        h, = inputs
        xp = backend.get_array_module(h)
        self.h_centered, _, covariance = covariance_array(h, h)
        xp.fill_diagonal(covariance, 0)
        self.covariance = covariance
        if self.reduce == "half_squared_sum":
            return half_squared_sum_array(covariance),
        return covariance,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, = self.get_retained_inputs()
        grad_loss, = grad_outputs
        arrays = (self._gradient_array(grad_loss.array),)
        if not records_a_graph():
            return gradients_without_graph(arrays, indexes)
        if self.reduce == "half_squared_sum":
            # d(0.5 * sum(C ** 2)) / dC = C, scaled by the loss's gradient.
            covariance = DeCov("no").apply((h,))[0]
            grad_covariance = covariance * broadcast_to(grad_loss, covariance.shape)
        else:
            xp = backend.get_array_module(h.array)
            off_diagonal = 1 - xp.eye(h.shape[1], dtype=h.dtype)
            grad_covariance = grad_loss * off_diagonal
        # C depends on h twice, as the left and as the right factor of h_c.T @ h_c.
        grad_left, = covariance_grads(h, h, grad_covariance, (0,))
        grad_right, = covariance_grads(h, h, grad_covariance, (1,))
        return gradients_with_values((grad_left + grad_right,), arrays, indexes)

    def _gradient_array(self, grad_loss: Any) -> Any:
        """h's gradient on arrays, in Chainer's arithmetic (NOTE [old-style gradients])."""
        xp = backend.get_array_module(grad_loss)
        grad_over_count = grad_loss / grad_loss.dtype.type(len(self.h_centered))
        if self.reduce == "half_squared_sum":
            grad = 2.0 * self.h_centered.dot(self.covariance)
            grad *= grad_over_count
            return grad
        xp.fill_diagonal(grad_over_count, 0.0)
        return self.h_centered.dot(grad_over_count + grad_over_count.T)


def decov(h: Any, reduce: str = "half_squared_sum") -> variable.Variable:
    """DeCov loss of hidden activations (Cogswell et al., 2016).

    With ``C`` the covariance matrix of the units of ``h`` over the batch, divided by ``N``, and
    its diagonal set to zero, the loss is ``0.5 * sum(C ** 2)``. It can be differentiated
    twice.

    Args:
        h: Hidden activations of shape ``(N, M)``.
        reduce: ``'half_squared_sum'`` returns the loss; ``'no'`` returns ``C`` itself.

    Returns:
        The loss of shape ``()``, or ``C`` of shape ``(M, M)`` for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: If ``h`` is not a 2-d float array.
    """
    loss: variable.Variable = DeCov(reduce).apply((h,))[0]
    return loss
