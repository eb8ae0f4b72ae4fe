"""``dstack``: joins arrays depth-wise (along axis 2, after making them at least 3-D).

Layer 5: imports variable and the shared join node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array._join import JoinBase


class Dstack(JoinBase):
    """``numpy.dstack`` of its inputs."""

    min_ndim = 3

    def _join_axis(self, ndim: int) -> int:
        return 2


def dstack(xs: Any) -> variable.Variable:
    """Concatenates Variables or arrays along the third axis, like ``numpy.dstack``.

    A 1-D input ``(N,)`` becomes ``(1, N, 1)`` and a 2-D input ``(M, N)`` becomes
    ``(M, N, 1)``; all are joined along axis 2.

    Args:
        xs: A sequence of Variables or arrays of one dtype and rank, with equal shapes
            except along axis 2.

    Returns:
        The joined Variable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If there is no input, or dtypes, ranks
            or shapes disagree.
    """
    y, = Dstack().apply(tuple(xs))
    return y
