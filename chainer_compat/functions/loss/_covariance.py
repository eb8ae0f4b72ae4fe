"""Centering and covariance shared by ``decov`` and ``cross_covariance`` (private): on arrays for
the forward passes, and from differentiable functions for the gradients.

Layer 5: imports backend, variable and the array and math functions.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.math.average import average
from chainer_compat.functions.math.matmul import matmul


def covariance_array(y: Any, z: Any) -> tuple[Any, Any, Any]:
    """``(y_centered, z_centered, y_centered.T @ z_centered / N)`` of two ``(N, *)`` arrays,
    centered over the batch (axis 0); the covariance has ``y``'s dtype."""
    y_centered = y - y.mean(axis=0, keepdims=True)
    z_centered = z - z.mean(axis=0, keepdims=True)
    covariance = y_centered.T.dot(z_centered) / y.dtype.type(len(y))
    return y_centered, z_centered, covariance.astype(y.dtype, copy=False)


def half_squared_sum_array(x: Any) -> Any:
    """``0.5 * sum(x ** 2)`` as a 0-d array of ``x``'s dtype."""
    xp = backend.get_array_module(x)
    return xp.asarray(xp.vdot(x, x) * x.dtype.type(0.5), dtype=x.dtype)


def centered(x: variable.Variable) -> variable.Variable:
    """``x`` minus its mean over the batch (axis 0), differentiably."""
    return x - broadcast_to(average(x, axis=0, keepdims=True), x.shape)


def covariance_grads(y: variable.Variable, z: variable.Variable, grad_covariance: Any,
                     indexes: tuple[int, ...]) -> tuple[Any, ...]:
    """The gradients for ``y`` and ``z`` (those in ``indexes``) of ``centered(y).T @
    centered(z) / N`` given its gradient, built from differentiable functions.

    The centering needs no gradient of its own: the columns of each result already sum to
    zero over the batch, since the other input's centered columns do.
    """
    count = len(y)
    grads: list[Any] = []
    if 0 in indexes:
        grads.append(matmul(centered(z), grad_covariance, transb=True) / count)
    if 1 in indexes:
        grads.append(matmul(centered(y), grad_covariance) / count)
    return tuple(grads)
