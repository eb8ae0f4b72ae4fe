"""``scale``: multiplies ``x`` by ``y`` along the axes of ``x`` that start at ``axis`` (Caffe
style).

Layer 5: imports the core and bias's alignment helper.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, variable
from chainer_compat.functions.math.bias import _align


def scale(x: Any, y: Any, axis: int = 1) -> variable.Variable:
    """Multiplies ``x`` by ``y``, lining ``y``'s axes up with ``x``'s from ``axis`` on.

    For ``x`` of shape ``(100, 3, 40, 5, 6)``, ``y`` of shape ``(3, 40)`` and ``axis=1``,
    ``y`` acts as an array of shape ``(1, 3, 40, 1, 1)`` broadcast to ``x``'s shape. ``y``
    may have 1 on an axis where ``x`` is longer, as in ``(3, 1)``.

    Args:
        x: Input Variable or array.
        y: Variable or array to multiply by, its shape a run of ``x``'s axes (or 1 on any of
            them).
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
    # compat: a raw array ``x`` stays a constant, so ``*`` casts it to ``y``'s dtype, as
    # Chainer's operators do (a Variable ``x`` of another dtype raises InvalidType).
    return x * _align(x, y, axis, "scale")
