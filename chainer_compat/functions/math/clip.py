"""``clip``: limits the elements of its input to ``[x_min, x_max]``, differentiably.

Layer 5: imports the core.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.utils import type_check


class Clip(FunctionNode):
    """Clips its input to ``[x_min, x_max]`` (either bound may be None, not both).

    Raises:
        ValueError: If both bounds are None, or ``x_min >= x_max``.
    """

    def __init__(self, x_min: Any, x_max: Any) -> None:
        if x_min is None and x_max is None:
            # compat: Chainer's wording.
            raise ValueError("must set either max or min")
        if x_min is not None and x_max is not None and x_min >= x_max:
            # compat: Chainer's wording, with the values added.
            raise ValueError(f"x_min must be less than x_max. (x_min={x_min}, x_max={x_max})")
        self.x_min = x_min
        self.x_max = x_max

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        if self.x_min is None:
            y = xp.minimum(x, self.x_max)
        elif self.x_max is None:
            y = xp.maximum(x, self.x_min)
        else:
            y = xp.clip(x, self.x_min, self.x_max)
        return utils.force_array(y, x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return ClipGrad(x.array, self.x_min, self.x_max).apply(grad_outputs)


class ClipGrad(FunctionNode):
    """The gradient of :class:`Clip`: ``gy`` where ``x`` is within the bounds, else 0.

    The bounds themselves pass the gradient through (slope 1), as in Chainer.
    """

    def __init__(self, x: Any, x_min: Any, x_max: Any) -> None:
        inside = None
        if x_min is not None:
            inside = x_min <= x
        if x_max is not None:
            upper = x <= x_max
            inside = upper if inside is None else inside & upper
        self.inside = inside

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("gy",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return utils.force_array(gy * self.inside, gy.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        return grad_outputs[0] * self.inside,


def clip(x: Any, x_min: Any, x_max: Any) -> variable.Variable:
    """Clips the elements of ``x`` to the interval ``[x_min, x_max]``.

    The gradient is 1 inside the interval and on its edges, 0 outside.

    Args:
        x: Input Variable or array (float).
        x_min: Lower bound (a scalar), or None for no lower bound.
        x_max: Upper bound (a scalar), or None for no upper bound.

    Returns:
        The output Variable.

    Raises:
        ValueError: If both bounds are None, or ``x_min >= x_max``.
    """
    y, = Clip(x_min, x_max).apply((x,))
    return y
