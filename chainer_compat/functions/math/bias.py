"""``bias``: adds ``y`` to ``x`` along the axes of ``x`` that start at ``axis`` (Caffe style).

Layer 5: imports the core and the array functions it composes.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.configuration import config
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.reshape import reshape
from chainer_compat.utils import type_check
from chainer_compat.utils._shapes import broadcasts_to


def _align(x: variable.Variable, y: Any, axis: int, name: str) -> variable.Variable:
    """Returns ``y`` reshaped to line up with ``x`` from ``axis`` on, broadcast to ``x``'s shape.

    Raises:
        AssertionError: In debug mode, if ``y``'s shape is not ``x.shape[axis:axis + y.ndim]``
            exactly (Chainer's debug assertion).
        chainer_compat.utils.type_check.InvalidType: If the reshaped ``y`` does not broadcast
            to ``x``'s shape.
    """
    x_shape = tuple(x.shape)
    y_shape = tuple(y.shape)
    if config.debug and x_shape[axis:axis + len(y_shape)] != y_shape:
        raise AssertionError(
            f"y of {name} must have the shape x.shape[axis:axis + y.ndim] in debug mode, got "
            f"y.shape={y_shape}, x.shape={x_shape} and axis={axis}: reshape y, or leave debug "
            f"mode to let y broadcast (1 on an axis it repeats along)")
    # compat: Chainer pads with `(1,) * n`, which is empty for a negative n, so a negative
    # axis or a y running past x's last axis yields a shape with too many axes, and fails.
    aligned = (1,) * axis + y_shape + (1,) * (len(x_shape) - axis - len(y_shape))
    # With type checks off, NumPy's broadcast raises ValueError, as in Chainer.
    if config.type_check and not broadcasts_to(aligned, x_shape):
        hint = ("Pass a non-negative axis." if axis < 0 else
                "Give y the shape x.shape[axis:axis + y.ndim], with 1 on any axis it repeats "
                "along.")
        expect = f"y aligned at axis {axis} broadcasts to x.shape {x_shape}"
        actual = f"y aligned at axis {axis}: {aligned}"
        raise type_check.InvalidType(
            expect, actual,
            f"y of {name} must broadcast to x's shape once its axes start at axis {axis}, got "
            f"y.shape={y_shape} (aligned: {aligned}) and x.shape={x_shape}\n{hint}\n"
            f"Expect: {expect}\nActual: {actual}")
    return broadcast_to(reshape(y, aligned), x_shape)


def bias(x: Any, y: Any, axis: int = 1) -> variable.Variable:
    """Adds ``y`` to ``x``, lining ``y``'s axes up with ``x``'s from ``axis`` on.

    For ``x`` of shape ``(100, 3, 40, 60)``, ``y`` of shape ``(3, 40)`` and ``axis=1``, ``y``
    acts as an array of shape ``(1, 3, 40, 1)`` broadcast to ``x``'s shape. ``y`` may have 1
    on an axis where ``x`` is longer, as in ``(3, 1)``.

    Args:
        x: Input Variable or array.
        y: Variable or array to add, its shape a run of ``x``'s axes (or 1 on any of them).
        axis: The first axis of ``x`` that ``y`` covers; must be non-negative.

    Returns:
        The output Variable.

    Raises:
        AssertionError: In debug mode (``chainer.set_debug(True)``), if ``y``'s shape is not
            ``x.shape[axis:axis + y.ndim]`` exactly, as Chainer asserts.
        chainer_compat.utils.type_check.InvalidType: If ``y``, lined up from ``axis``, does
            not broadcast to ``x``'s shape.
    """
    if not backend.is_array(x):
        x = variable.as_variable(x)
    # compat: a raw array ``x`` stays a constant, so ``+`` casts it to ``y``'s dtype, as
    # Chainer's operators do (a Variable ``x`` of another dtype raises InvalidType).
    return x + _align(x, y, axis, "bias")
