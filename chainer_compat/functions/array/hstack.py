"""``hstack``: joins arrays column-wise (along axis 1, or axis 0 for 1-D inputs).

Layer 5: imports variable and the shared join node.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array._join import JoinBase


class Hstack(JoinBase):
    """``numpy.hstack`` of its inputs."""

    min_ndim = 1

    def _join_axis(self, ndim: int) -> int:
        return 0 if ndim == 1 else 1


def hstack(xs: Any) -> variable.Variable:
    """Concatenates Variables or arrays horizontally, like ``numpy.hstack``.

    0-D inputs become 1-D; 1-D inputs are joined along axis 0, others along axis 1.

    Args:
        xs: A sequence of Variables or arrays of one dtype and rank, with equal shapes
            except along the joined axis.

    Returns:
        The joined Variable.

    Raises:
        chainer_compat.utils.type_check.InvalidType: If there is no input, or dtypes, ranks
            or shapes disagree.
    """
    y, = Hstack().apply(tuple(xs))
    return y
