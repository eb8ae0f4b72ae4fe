"""``Bias``: adds a learned (or a second input's) bias, broadcast from a given axis.

Layer 8: imports functions, link and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.math.bias import bias
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["Bias"]

_COUNT_WORDS = {1: "one input", 2: "two inputs"}


class Bias(link.Link):
    """Adds a bias to its input, matching the bias's axes to ``x``'s from ``axis`` on.

    With ``shape`` the bias is a learned parameter ``b`` and the link takes one input; without
    it the link has no parameter and takes the bias as a second input.

    Args:
        axis: The axis of ``x`` where the bias's first axis lies.
        shape: Shape of the learned bias, or None to take the bias as a second input.

    Attributes:
        b: The learned bias, initialized to zeros (only when ``shape`` is given).
        axis: The axis given at construction.
    """

    def __init__(self, axis: int = 1, shape: Any = None) -> None:
        super().__init__()
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(0, shape)
        self.axis = axis

    def forward(self, *xs: Any) -> variable.Variable:
        """Returns ``x + b`` (one input) or ``x + y`` (two inputs), broadcast from ``axis``.

        Raises:
            ValueError: If the number of inputs does not match the link's form: one input when
                it learns ``b``, two otherwise (also an ``AssertionError``, as in Chainer's
                debug mode).
        """
        if hasattr(self, "b"):
            x, = _unpack(xs, 1, "with a learned b (shape given)")
            return bias(x, self.b, self.axis)
        x, y = _unpack(xs, 2, "without a learned b (shape=None)")
        return bias(x, y, self.axis)


def _unpack(inputs: tuple[Any, ...], count: int, form: str) -> tuple[Any, ...]:
    # compat: Chainer unpacks (ValueError) after a debug-mode assert (AssertionError);
    # NOTE [bare asserts].
    if len(inputs) != count:
        raise AssertValueError(
            f"Bias {form} must be called with {_COUNT_WORDS[count]}, got {len(inputs)}")
    return inputs
