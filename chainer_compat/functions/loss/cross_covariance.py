"""``cross_covariance``: the squared cross-covariance between two sets of units.

Layer 5: imports variable, type_check and the array and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.loss._covariance import (
    batch_covariance,
    check_matrix,
    half_squared_sum,
)
from chainer_compat.functions.loss._options import check_reduce
from chainer_compat.utils import type_check


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
            array, or their batch sizes differ.
    """
    check_reduce(reduce, ("half_squared_sum", "no"), "cross_covariance")
    y = check_matrix(y, "y")
    z = check_matrix(z, "z")
    if y.shape[0] != z.shape[0]:
        raise type_check.InvalidType("y.shape[0] == z.shape[0]",
                                     f"{y.shape[0]} != {z.shape[0]}")
    covariance = batch_covariance(y, z)
    if reduce == "half_squared_sum":
        return half_squared_sum(covariance)
    return covariance
