"""Centering, covariance and input checks shared by ``decov`` and ``cross_covariance`` (private).

Layer 5: imports variable, utils.type_check and the array and math functions.
"""

from __future__ import annotations

from chainer_compat import variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.math.average import average
from chainer_compat.functions.math.matmul import matmul
from chainer_compat.functions.math.sum import sum as sum_all


def centered(x: variable.Variable) -> variable.Variable:
    """``x`` minus its mean over the batch (axis 0)."""
    return x - broadcast_to(average(x, axis=0, keepdims=True), x.shape)


def batch_covariance(y: variable.Variable, z: variable.Variable) -> variable.Variable:
    """``centered(y).T @ centered(z) / N``: the covariance of every column of y with z's."""
    return matmul(centered(y), centered(z), transa=True) / len(y)


def half_squared_sum(x: variable.Variable) -> variable.Variable:
    """``0.5 * sum(x ** 2)``."""
    return sum_all(x * x) * 0.5
