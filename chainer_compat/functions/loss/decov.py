"""``decov``: the DeCov loss, which penalizes the covariance between different hidden units.

Layer 5: imports backend, variable, type_check and the array and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.functions.loss._covariance import batch_covariance, half_squared_sum
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check


class _InputTypes:
    """The type check of :func:`decov`, run under the label of Chainer's ``DeCov`` so that a
    failure reads as Chainer's does."""

    label = "DeCov"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("h",))
        h_type, = in_types
        type_check.expect(h_type.dtype.kind == "f", h_type.ndim == 2)


def decov(h: Any, reduce: str = "half_squared_sum") -> variable.Variable:
    """DeCov loss of hidden activations (Cogswell et al., 2016).

    With ``C`` the covariance matrix of the units of ``h`` over the batch, divided by ``N``, and
    its diagonal set to zero, the loss is ``0.5 * sum(C ** 2)``. It is built from differentiable
    functions, so it can be differentiated twice.

    Args:
        h: Hidden activations of shape ``(N, M)``.
        reduce: ``'half_squared_sum'`` returns the loss; ``'no'`` returns ``C`` itself.

    Returns:
        The loss of shape ``()``, or ``C`` of shape ``(M, M)`` for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: If ``h`` is not a 2-d float array.
    """
    check_reduce(reduce, ("half_squared_sum", "no"), "decov")
    h = variable.as_variable(h)
    type_check._check_types_forward(_InputTypes(), (h.array,))
    covariance = batch_covariance(h, h)
    xp = backend.get_array_module(h.array)
    off_diagonal = 1 - xp.eye(h.shape[1], dtype=h.dtype)
    covariance = covariance * off_diagonal
    if reduce == "half_squared_sum":
        return half_squared_sum(covariance)
    return covariance
