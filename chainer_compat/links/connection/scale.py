"""``Scale``: multiplies by a learned (or a second input's) scale broadcast from an axis, and
optionally adds a learned bias.

Layer 8: imports functions, link, links.connection.bias and variable.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import link, variable
from chainer_compat.functions.math.scale import scale
from chainer_compat.links.connection.bias import Bias
from chainer_compat.utils._assertions import AssertValueError

__all__ = ["Scale"]


class Scale(link.Chain):
    """Multiplies its input by a scale whose axes match ``x``'s from ``axis`` on.

    With ``W_shape`` the scale is a learned parameter ``W`` (ones at first) and the link takes
    one input; without it the scale is a second input. With ``bias_term`` a child
    :class:`Bias` named ``bias`` adds a learned bias afterwards.

    Args:
        axis: The axis of ``x`` where the scale's first axis lies.
        W_shape: Shape of the learned scale, or None to take it as a second input.
        bias_term: Whether to add a learned bias.
        bias_shape: Shape of the bias when ``W_shape`` is None (with ``W_shape`` the bias has
            that shape).

    Attributes:
        W: The learned scale (only when ``W_shape`` is given).
        bias: The :class:`Bias` child (only when ``bias_term`` is True).
        axis: The axis given at construction.

    Raises:
        ValueError: If ``bias_term`` is True while both ``W_shape`` and ``bias_shape`` are None.
    """

    def __init__(self, axis: int = 1, W_shape: Any = None, bias_term: bool = False,
                 bias_shape: Any = None) -> None:
        super().__init__()
        self.axis = axis
        if W_shape is None and bias_term and bias_shape is None:
            raise ValueError(
                "bias_shape must be given when W_shape is None and bias_term is True, got "
                "None; pass bias_shape=... or W_shape=...")
        with self.init_scope():
            if W_shape is not None:
                self.W = variable.Parameter(1, W_shape)
                if bias_term:
                    self.bias = Bias(axis, W_shape)
            elif bias_term:
                self.bias = Bias(axis, bias_shape)

    def forward(self, *xs: Any) -> variable.Variable:
        """Returns ``x * W`` (one input) or ``x * y`` (two inputs), plus the bias if any.

        Raises:
            ValueError: If the number of inputs does not match the link's form: one input when
                it learns ``W``, two otherwise (also an ``AssertionError``, as in Chainer's
                debug mode).
        """
        if hasattr(self, "W"):
            if len(xs) != 1:
                # compat: Chainer unpacks (ValueError) after a debug-mode assert
                # (AssertionError); NOTE [bare asserts].
                raise AssertValueError(
                    f"Scale with a learned W (W_shape given) must be called with one input, got "
                    f"{len(xs)}")
            out = scale(xs[0], self.W, self.axis)
        else:
            if len(xs) != 2:
                # compat: as above, NOTE [bare asserts].
                raise AssertValueError(
                    f"Scale without a learned W (W_shape=None) must be called with two inputs, "
                    f"got {len(xs)}")
            out = scale(xs[0], xs[1], self.axis)
        if hasattr(self, "bias"):
            return self.bias(out)
        return out
