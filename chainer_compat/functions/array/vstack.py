"""``vstack``: joins arrays row-wise (along axis 0, after making them at least 2-D).

Layer 5: imports variable and the shared join node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array._join import JoinBase


class Vstack(JoinBase):
    """``numpy.vstack`` of its inputs."""

    min_ndim = 2

    def _join_axis(self, ndim: int) -> int:
        return 0


def vstack(xs: Any) -> variable.Variable:
    """Concatenates Variables or arrays vertically, like ``numpy.vstack``.

    0-D and 1-D inputs become rows of shape ``(1, N)``; all are joined along axis 0.

    Args:
        xs: A sequence of Variables or arrays of one dtype and rank, with equal shapes
            except along axis 0.

    Returns:
        The joined Variable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If there is no input, or dtypes, ranks
            or shapes disagree.
    """
    y, = Vstack().apply(tuple(xs))
    return y
