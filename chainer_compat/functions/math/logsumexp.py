"""``logsumexp``: the differentiable ``log(sum(exp(x)))`` over some axes, without overflow.

Layer 5: imports the core, the shared math helpers, exp and the array functions it composes.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.function_node import FunctionNode
from chainer_compat.functions.array.broadcast import broadcast_to
from chainer_compat.functions.array.expand_dims import expand_dims
from chainer_compat.functions.math._common import check_axes, normalize_axis
from chainer_compat.functions.math.exponential import exp
from chainer_compat.utils import type_check
from chainer_compat.utils._reduction_order import sum_in_numpy1_order


class LogSumExp(FunctionNode):
    """``log(sum(exp(x), axis))``, computed around the maximum.

    Raises:
        TypeError: If ``axis`` is not None, an int or a tuple of ints.
        ValueError: If ``axis`` repeats an axis.
    """

    def __init__(self, axis: Any = None) -> None:
        self.axis = normalize_axis(axis)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")
        check_axes(in_types[0], self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        peak = x.max(axis=self.axis, keepdims=True)
        shifted = xp.exp(x - peak)
        total = sum_in_numpy1_order(shifted, self.axis)  # NOTE [NumPy 1 sum order]
        return utils.force_array(xp.log(total) + peak.reshape(total.shape), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        if self.axis is not None:
            # compat: one ExpandDims per reduced axis, gy's and y's in turn, as Chainer applies
            # them (one Reshape each would do).
            for axis in sorted(axis % x.ndim for axis in self.axis):
                gy = expand_dims(gy, axis)
                y = expand_dims(y, axis)
        gy = broadcast_to(gy, x.shape)
        y = broadcast_to(y, x.shape)
        # The softmax of x over the axes, times the output gradient.
        return gy * exp(x - y),


def logsumexp(x: Any, axis: Any = None) -> variable.Variable:
    """Logarithm of the sum of exponentials of the elements of ``x`` over ``axis``.

    Args:
        x: Input Variable or array (float).
        axis: None (all axes), an int, or a tuple of ints.

    Returns:
        The output Variable.
    """
    y, = LogSumExp(axis).apply((x,))
    return y
