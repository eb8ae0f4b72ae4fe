"""``cross_covariance``: the squared cross-covariance between two sets of units.

Layer 5: imports variable, type_check and the array and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.loss._covariance import batch_covariance, half_squared_sum
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check


class _InputTypes:
    """The type checks of :func:`cross_covariance`, run under the label of Chainer's
    ``CrossCovariance`` so that a failure reads as Chainer's does."""

    label = "CrossCovariance"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("y", "z"))
        y_type, z_type = in_types
        type_check.expect(
            y_type.dtype.kind == "f",
            y_type.dtype == z_type.dtype,
            y_type.ndim == 2,
            z_type.ndim == 2,
        )
        # A second call: a light check reads shape[0] at once, so the ndims must hold first.
        type_check.expect(y_type.shape[0] == z_type.shape[0])


def cross_covariance(y: Any, z: Any, reduce: str = "half_squared_sum") -> variable.Variable:
    """Cross-covariance loss between two sets of activations (Cheung et al., 2015).

    With ``C = (y - mean(y)).T @ (z - mean(z)) / N`` (means over the batch), the loss is
    ``0.5 * sum(C ** 2)``. It is built from differentiable functions, so it can be
    differentiated twice.

    Args:
        y: Activations of shape ``(N, M)``.
        z: Activations of shape ``(N, K)``.
        reduce: ``'half_squared_sum'`` returns the loss; ``'no'`` returns ``C`` itself.

    Returns:
        The loss of shape ``()``, or ``C`` of shape ``(M, K)`` for ``'no'``.

    Raises:
        ValueError: On an invalid ``reduce``.
        chainer_compat.utils.type_check.InvalidType: If ``y`` or ``z`` is not a 2-d float
            array, their dtypes differ, or their batch sizes differ.
    """
    check_reduce(reduce, ("half_squared_sum", "no"), "cross_covariance")
    y = variable.as_variable(y)
    z = variable.as_variable(z)
    type_check._check_types_forward(_InputTypes(), (y.array, z.array))
    covariance = batch_covariance(y, z)
    if reduce == "half_squared_sum":
        return half_squared_sum(covariance)
    return covariance
