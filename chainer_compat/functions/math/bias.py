"""``bias``: adds ``y`` to ``x`` along the axes of ``x`` that start at ``axis`` (Caffe style).

Layer 5: imports the core and the array functions it composes.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import variable
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape


def _align(x: variable.Variable, y: Any, axis: int, name: str) -> variable.Variable:
    """Returns ``y`` reshaped and broadcast to ``x``'s shape, its axes from ``axis`` on."""
    x_shape = tuple(x.shape)
    y_shape = tuple(y.shape)
    if axis < 0 or x_shape[axis:axis + len(y_shape)] != y_shape:
        raise ValueError(
            f"{name}: y's shape must equal x's shape from axis {axis} on, got x {x_shape} and "
            f"y {y_shape}")
    aligned = (1,) * axis + y_shape + (1,) * (len(x_shape) - axis - len(y_shape))
    return broadcast_to(reshape(y, aligned), x_shape)


def bias(x: Any, y: Any, axis: int = 1) -> variable.Variable:
    """Adds ``y`` to ``x``, lining ``y``'s axes up with ``x``'s from ``axis`` on.

    For ``x`` of shape ``(100, 3, 40, 60)``, ``y`` of shape ``(3, 40)`` and ``axis=1``, ``y``
    acts as an array of shape ``(1, 3, 40, 1)`` broadcast to ``x``'s shape.

    Args:
        x: Input Variable or array.
        y: Variable or array to add, its shape a run of ``x``'s axes.
        axis: The first axis of ``x`` that ``y`` covers.

    Returns:
        The output Variable.

    Raises:
        ValueError: If ``y``'s shape is not ``x.shape[axis:axis + y.ndim]``.

    Compat:
        Chainer checks the shapes only in debug mode, with an ``assert``.
    """
    x = variable.as_variable(x)
    return x + _align(x, y, axis, "bias")
