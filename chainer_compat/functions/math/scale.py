"""``scale``: multiplies ``x`` by ``y`` along the axes of ``x`` that start at ``axis`` (Caffe
style).

Layer 5: imports the core and bias's alignment helper.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.math.bias import _align


def scale(x: Any, y: Any, axis: int = 1) -> variable.Variable:
    """Multiplies ``x`` by ``y``, lining ``y``'s axes up with ``x``'s from ``axis`` on.

    For ``x`` of shape ``(100, 3, 40, 5, 6)``, ``y`` of shape ``(3, 40)`` and ``axis=1``,
    ``y`` acts as an array of shape ``(1, 3, 40, 1, 1)`` broadcast to ``x``'s shape.

    Args:
        x: Input Variable or array.
        y: Variable or array to multiply by, its shape a run of ``x``'s axes.
        axis: The first axis of ``x`` that ``y`` covers.

    Returns:
        The output Variable.

    Raises:
        ValueError: If ``y``'s shape is not ``x.shape[axis:axis + y.ndim]``.

    Compat:
        Chainer checks the shapes only in debug mode, with an ``assert``.
    """
    x = variable.as_variable(x)
    return x * _align(x, y, axis, "scale")
