"""``fix``: rounding toward zero, as a Variable outside the graph.

Layer 5: imports the core.
"""

from __future__ import annotations

from typing import Any

from chainer_compat import backend, utils, variable


def fix(x: Any) -> variable.Variable:
    """Elementwise rounding toward zero (not differentiable: the result starts a new graph).

    Args:
        x: Input Variable or array.

    Returns:
        A Variable of ``x``'s dtype that requires no gradient.
    """
    array = variable.as_array(x)
    xp = backend.get_array_module(array)
    # trunc rounds toward zero as numpy.fix does (signed zeros, inf and nan included);
    # NumPy 2.5 deprecates fix.
    return variable.as_variable(utils.force_array(xp.trunc(array), array.dtype))
