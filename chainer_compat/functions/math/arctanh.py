"""``arctanh``: the differentiable inverse hyperbolic tangent.

Layer 5: imports the core, ``square`` and the shared math helpers.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable
from chainer_compat.functions.math._common import FloatUnary
from chainer_compat.functions.math.square import square


class Arctanh(FloatUnary):
    """Elementwise inverse hyperbolic tangent."""

    # compat: Chainer gives Arctanh no label of its own, so it is the class name.
    _label = ""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        return utils.force_array(backend.get_array_module(x).arctanh(x), x.dtype),

    def backward(self, indexes: tuple[int, ...], grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (1.0 - square(x)),


def arctanh(x: Any) -> variable.Variable:
    """Elementwise inverse hyperbolic tangent, for ``x`` in (-1, 1).

    Args:
        x: Input Variable or array (float).

    Returns:
        The output Variable.
    """
    y, = Arctanh().apply((x,))
    return y
